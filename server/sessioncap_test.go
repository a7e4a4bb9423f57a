package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/httpguard"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// openSession sends an initialize and returns the response's status, the
// session it opened ("" for none) and its body, read to the end.
func openSession(t testing.TB, base string) (status int, session, body string) {
	t.Helper()
	resp := testsupport.Post(t, base+"/mcp", initializeBody, nil)
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(data)
}

// mustOpenSession opens a session or fails the test.
func mustOpenSession(t testing.TB, base string) string {
	t.Helper()
	status, session, body := openSession(t, base)
	if status != http.StatusOK || session == "" {
		t.Fatalf("initialize: status %d, session %q, body %s", status, session, body)
	}
	return session
}

// deleteSession ends a session with DELETE and returns the status.
func deleteSession(t *testing.T, base, session string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, base+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", legacyVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// sessionRefusal checks that an initialize was refused for the cap, with a
// JSON-RPC error that says what to do next.
func sessionRefusal(t *testing.T, status int, body string, max string) {
	t.Helper()
	var msg struct {
		ID    *json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if status != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &msg) != nil || msg.Error == nil || msg.Error.Code != httpguard.CodeTooManySessions || msg.ID != nil {
		t.Fatalf("initialize past the cap: status %d, body %s; want 503 with a JSON-RPC error (code %d, id null)", status, body, httpguard.CodeTooManySessions)
	}
	for _, want := range []string{"maximum of " + max + " sessions", "DELETE", "--max-sessions"} {
		if !strings.Contains(msg.Error.Message, want) {
			t.Errorf("refusal %q does not mention %q", msg.Error.Message, want)
		}
	}
}

func TestHTTPRefusesASessionPastTheCapUntilOneIsDeleted(t *testing.T) {
	s, logs := newServer(t, Config{}, customSet(t, echoTool(t)))
	base, _ := serveHTTP(t, s, HTTPConfig{MaxSessions: 2})
	first := mustOpenSession(t, base)
	mustOpenSession(t, base)

	status, _, body := openSession(t, base)
	sessionRefusal(t, status, body, "2")
	// The sessions already open are served as before.
	resp := post(t, base, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": first, "Mcp-Protocol-Version": legacyVersion})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a ping on an open session at the cap: status %d", resp.StatusCode)
	}
	if n := len(logs.records("refusing new HTTP sessions: the server holds its maximum")); n != 1 {
		t.Errorf("%d refusal warnings logged, want 1:\n%s", n, logs)
	}

	if status := deleteSession(t, base, first); status != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", status)
	}
	mustOpenSession(t, base)
}

func TestHTTPSessionCapFreesTheSessionsThatExpire(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	base, _ := serveHTTP(t, s, HTTPConfig{MaxSessions: 1, SessionTimeout: 50 * time.Millisecond})
	id := mustOpenSession(t, base)
	var ended <-chan error
	for ss := range s.mcp.Sessions() {
		if ss.ID() == id {
			ended = background(ss.Wait)
		}
	}
	if ended == nil {
		t.Fatal("the session is not listed")
	}
	wait(t, ended, "the idle session to expire")
	mustOpenSession(t, base)
}

func TestHTTPSessionCapHoldsForConcurrentInitializes(t *testing.T) {
	const max, clients = 5, 40
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	base, _ := serveHTTP(t, s, HTTPConfig{MaxSessions: max})
	var wg sync.WaitGroup
	statuses := make(chan int, clients)
	for range clients {
		wg.Go(func() {
			status, _, _ := openSession(t, base)
			statuses <- status
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for status := range statuses {
		count[status]++
	}
	if count[http.StatusOK] != max || count[http.StatusServiceUnavailable] != clients-max {
		t.Errorf("statuses %v, want %d × 200 and %d × 503", count, max, clients-max)
	}
}

func TestHTTPSessionCapRefusesAnSDKClientClearly(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	base, _ := serveHTTP(t, s, HTTPConfig{MaxSessions: 1})
	connectHTTP(t, base, "", legacyVersion, nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "second", Version: "1"}, nil)
	_, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: legacyVersion})
	if err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("a client past the cap connected or got %v, want Service Unavailable", err)
	}
}

// BenchmarkIdleSessions opens b.N sessions (initialize, then nothing) and
// reports what each costs the server while it waits: heap and goroutine
// stack bytes, and goroutines.
func BenchmarkIdleSessions(b *testing.B) {
	s, _ := newServer(b, Config{}, customSet(b, echoTool(b)))
	hs, err := s.ListenHTTP(HTTPConfig{Addr: "127.0.0.1:0", MaxSessions: -1})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := background(func() error { return hs.Serve(ctx) })
	b.Cleanup(func() {
		cancel()
		<-served
	})
	base := "http://" + hs.Addr().String()
	mustOpenSession(b, base) // warm up

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()
	for b.Loop() {
		mustOpenSession(b, base)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	n := float64(b.N)
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/n, "heap-B/session")
	b.ReportMetric(float64(int64(after.StackInuse)-int64(before.StackInuse))/n, "stack-B/session")
	b.ReportMetric(float64(runtime.NumGoroutine()-goroutines)/n, "goroutines/session")
}
