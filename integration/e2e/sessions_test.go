package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// TestHTTPSessionsPastTheCapAreRefusedUntilOneEnds serves with
// --max-sessions 1: while a client holds the session, another initialize
// gets 503 with a body that says what to do; once the client closes its
// session (DELETE), a new one opens.
func TestHTTPSessionsPastTheCapAreRefusedUntilOneEnds(t *testing.T) {
	h := startHTTP(t, "", "--max-sessions", "1")
	cs := h.connect(t, client{protocol: legacyProtocol})
	if res := testsupport.Call(t, cs, "echo", args("subject", "held")); res.IsError {
		t.Fatalf("echo: %s", text(res))
	}

	resp := testsupport.Post(t, h.url, string(initialize), nil)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"id":null`) || !strings.Contains(string(body), "--max-sessions") {
		t.Fatalf("initialize past the cap: status %d, body %s; want 503 naming --max-sessions", resp.StatusCode, body)
	}
	h.log.waitRecord(t, "the refusal warning", func(r map[string]any) bool {
		return r["msg"] == "refusing new HTTP sessions: the server holds its maximum" && r["max_sessions"] == 1.0
	})

	if err := cs.Close(); err != nil {
		t.Fatalf("closing the session: %v", err)
	}
	if got := h.post(t, initialize, nil); got != http.StatusOK {
		t.Errorf("initialize after the session ended: status %d, want 200", got)
	}
}
