package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// One HTTP session that fills its share of the slots with calls that do not
// end (a client that started long commands and dropped its connections)
// leaves the other slots to other sessions: their calls run at once.
func TestOneHTTPSessionCannotHoldEverySlot(t *testing.T) {
	b := newBarrier()
	s, _ := newServer(t, Config{Concurrency: 4}, customSet(t, b.tool(t)))
	waiting := make(chan string, 10)
	s.onSlotWait = func(tool string) { waiting <- tool }
	base, _ := serveHTTP(t, s, HTTPConfig{})
	greedy := connectHTTP(t, base, "", legacyVersion, nil)
	other := connectHTTP(t, base, "", legacyVersion, nil)

	var results []<-chan *mcp.CallToolResult
	for range 4 {
		results = append(results, background(func() *mcp.CallToolResult { return call(t, greedy, "hold", nil) }))
	}
	wait(t, b.entered, "the greedy session's first call to run")
	wait(t, b.entered, "the greedy session's second call to run")
	wait(t, waiting, "the greedy session's third call to wait, at its share of 2 of 4 slots")
	wait(t, waiting, "the greedy session's fourth call to wait")

	results = append(results, background(func() *mcp.CallToolResult { return call(t, other, "hold", nil) }))
	wait(t, b.entered, "the other session's call to run while the greedy session holds its share")
	select {
	case tool := <-waiting:
		t.Fatalf("a call of %s waited for a slot although two were free for the other session", tool)
	default:
	}
	if got := b.max(); got != 3 {
		t.Fatalf("%d calls ran at once, want 3 (two of the greedy session's, one of the other's)", got)
	}

	close(b.release)
	for i, ch := range results {
		if res := wait(t, ch, "a call to finish"); res.IsError {
			t.Errorf("call %d: %s", i, text(res))
		}
	}
	if got := b.max(); got > 4 {
		t.Errorf("%d calls ran at once, want at most 4", got)
	}
}

// stdio serves one client, which may use every slot.
func TestACallWithoutAnHTTPClientMayUseEverySlot(t *testing.T) {
	p := newSlotPool(3, 2)
	for i := range 3 {
		if _, err := p.acquire(t.Context(), "", nil); err != nil {
			t.Fatalf("slot %d: %v", i, err)
		}
	}
}

// A waiting call whose client is at its share does not hold up a later
// call of another client, and slots go to waiting calls in order of arrival.
func TestSlotsSkipAClientAtItsShareAndServeInOrder(t *testing.T) {
	p := newSlotPool(2, 1)
	relA, err := p.acquire(t.Context(), "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	relB, err := p.acquire(t.Context(), "b", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 3)
	queued := make(chan struct{}, 3)
	for _, c := range []string{"a", "c", "b"} {
		go func() {
			rel, err := p.acquire(t.Context(), c, func() { queued <- struct{}{} })
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			got <- c
			rel()
		}()
		wait(t, queued, "a call to queue")
	}
	// b's slot frees: a is at its share and c arrived before b, so c runs.
	relB()
	if first := wait(t, got, "the first queued call to run"); first != "c" {
		t.Fatalf("first queued call to run: %s, want c", first)
	}
	relA()
	for range 2 {
		if c := wait(t, got, "the other queued calls to run"); c != "a" && c != "b" {
			t.Fatalf("queued call: %s", c)
		}
	}
}

// A call cancelled while it waits takes no slot with it.
func TestACancelledWaitLeavesNoSlotTaken(t *testing.T) {
	p := newSlotPool(1, 1)
	rel, err := p.acquire(t.Context(), "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	queued := make(chan struct{})
	done := background(func() error {
		_, err := p.acquire(ctx, "b", func() { close(queued) })
		return err
	})
	wait(t, queued, "b to queue")
	cancel()
	if err := wait(t, done, "the cancelled wait to end"); err == nil {
		t.Fatal("a cancelled wait took a slot")
	}
	rel()
	if _, err := p.acquire(t.Context(), "c", nil); err != nil {
		t.Fatalf("after the cancel the slot is free, but: %v", err)
	}
}

// The address a sessionless call is counted against is the connection's,
// whatever the client claims in the header that carries it.
func TestTheClientAddressCannotBeClaimedByAHeader(t *testing.T) {
	var seen []string
	h := withClientAddr(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		seen = r.Header.Values(clientAddrHeader)
	}))
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.RemoteAddr = "192.0.2.7:40312"
	r.Header.Set(clientAddrHeader, "198.51.100.1")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if len(seen) != 1 || seen[0] != "192.0.2.7" {
		t.Fatalf("handler saw %q, want exactly the connection's address 192.0.2.7", seen)
	}
}

// A sessionless OAuth call counts against its user, wherever it comes
// from; a call with the shared token, against its address and token.
func TestASessionlessCallCountsAgainstItsOAuthUser(t *testing.T) {
	header := http.Header{clientAddrHeader: {"192.0.2.7"}}
	for _, c := range []struct {
		name  string
		extra *mcp.RequestExtra
		want  string
	}{
		{"OAuth", &mcp.RequestExtra{Header: header, TokenInfo: &auth.TokenInfo{UserID: "https://auth.example.com/#alice"}}, "user https://auth.example.com/#alice"},
		{"shared token", &mcp.RequestExtra{Header: header}, "address 192.0.2.7 token "},
	} {
		got := clientOf(&mcp.CallToolRequest{Extra: c.extra})
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: client %q, want %q", c.name, got, c.want)
		}
	}
}
