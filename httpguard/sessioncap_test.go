package httpguard

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// transport stands in for the SDK's streamable handler: a POST without a
// session opens one named in the response, listed until ended.
type transport struct {
	mu   sync.Mutex
	live map[string]bool
	next int
}

func (tr *transport) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && r.URL.Query().Get("open") != "no" {
		tr.mu.Lock()
		tr.next++
		id := fmt.Sprintf("session-%d", tr.next)
		tr.live[id] = true
		tr.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", id)
	}
	w.WriteHeader(http.StatusOK)
}

func (tr *transport) Live() iter.Seq[string] {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return maps.Keys(maps.Clone(tr.live))
}

func (tr *transport) end(id string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	delete(tr.live, id)
}

// request sends one request through h and returns the response and the
// session it names.
func request(t *testing.T, h http.Handler, method, target, session string) (*httptest.ResponseRecorder, string) {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), method, target, nil)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec, rec.Header().Get("Mcp-Session-Id")
}

// A request that would open a session past the cap is refused with a
// JSON-RPC error saying what to do; requests of open sessions pass; a
// session that ends, and a request that opened none, give their place up.
func TestSessionCapRefusesPastMaxUntilASessionEnds(t *testing.T) {
	tr := &transport{live: map[string]bool{}}
	h := (&SessionCap{Max: 2, Live: tr.Live, IdleTimeout: 30 * time.Minute}).Handler(tr)
	if rec, _ := request(t, h, http.MethodPost, "/mcp?open=no", ""); rec.Code != http.StatusOK {
		t.Fatalf("a request opening no session: status %d", rec.Code)
	}
	_, first := request(t, h, http.MethodPost, "/mcp", "")
	request(t, h, http.MethodPost, "/mcp", "")

	rec, _ := request(t, h, http.MethodPost, "/mcp", "")
	var msg struct {
		ID    *json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if rec.Code != http.StatusServiceUnavailable || json.Unmarshal(rec.Body.Bytes(), &msg) != nil || msg.Error == nil || msg.Error.Code != CodeTooManySessions || msg.ID != nil {
		t.Fatalf("past the cap: status %d, body %s; want 503 with a JSON-RPC error (code %d, id null)", rec.Code, rec.Body, CodeTooManySessions)
	}
	for _, want := range []string{"maximum of 2 sessions", "DELETE", "after 30m0s without a request", "--max-sessions"} {
		if !strings.Contains(msg.Error.Message, want) {
			t.Errorf("refusal %q does not mention %q", msg.Error.Message, want)
		}
	}
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		if rec, _ := request(t, h, method, "/mcp", first); rec.Code != http.StatusOK {
			t.Errorf("%s of an open session at the cap: status %d", method, rec.Code)
		}
	}

	tr.end(first)
	if rec, id := request(t, h, http.MethodPost, "/mcp", ""); rec.Code != http.StatusOK || id == "" {
		t.Errorf("after a session ended: status %d, session %q; want one opened", rec.Code, id)
	}
}

// Openings count from admission: of concurrent requests, no more than Max
// reach the transport while the others are refused. Each request either
// reaches the transport, which holds it, or is refused: one event each.
func TestSessionCapHoldsForConcurrentOpenings(t *testing.T) {
	const max, clients = 3, 10
	events, release := make(chan int, clients), make(chan struct{})
	const entered = 0
	tr := &transport{live: map[string]bool{}}
	holding := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		events <- entered
		<-release
		tr.ServeHTTP(w, r)
	})
	h := (&SessionCap{Max: max, Live: tr.Live}).Handler(holding)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			if rec, _ := request(t, h, http.MethodPost, "/mcp", ""); rec.Code != http.StatusOK {
				events <- rec.Code
			}
		})
	}
	count := map[int]int{}
	for range clients {
		count[<-events]++
	}
	close(release)
	wg.Wait()
	if count[entered] != max || count[http.StatusServiceUnavailable] != clients-max {
		t.Errorf("%d requests reached the transport and %v were answered, want %d and %d × 503", count[entered], count, max, clients-max)
	}
}

func TestSessionCapWithoutMaxBoundsNothing(t *testing.T) {
	tr := &transport{live: map[string]bool{}}
	h := (&SessionCap{Live: tr.Live}).Handler(tr)
	for i := range 5 {
		if rec, _ := request(t, h, http.MethodPost, "/mcp", ""); rec.Code != http.StatusOK {
			t.Fatalf("opening %d: status %d", i+1, rec.Code)
		}
	}
}
