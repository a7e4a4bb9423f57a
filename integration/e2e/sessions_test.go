package e2e

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// TestHTTPDeleteKillsTheSessionsCommandAtOnce deletes a session while its
// hour-long command runs: the DELETE is answered without waiting for the
// command, whose processes are killed, and another session goes on.
func TestHTTPDeleteKillsTheSessionsCommandAtOnce(t *testing.T) {
	h := startHTTP(t, "", "--timeout", "1h")
	cs := h.connect(t, client{protocol: legacyProtocol})
	other := h.connect(t, client{protocol: legacyProtocol})
	pidFile := filepath.Join(t.TempDir(), "pids")
	go func() {
		_, _ = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "spawn", Arguments: args("pid-file", pidFile, "for", "1h")})
	}()
	waitFor(t, "the command to start", func() bool { return fileReady(pidFile) })
	pids := readPids(t, pidFile)

	deleted := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodDelete, h.url, nil)
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Mcp-Protocol-Version", legacyProtocol)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			deleted <- 0
			return
		}
		resp.Body.Close()
		deleted <- resp.StatusCode
	}()
	if status := await(t, deleted, "the DELETE to be answered"); status != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", status)
	}
	for _, pid := range pids {
		waitFor(t, "pid to be gone", func() bool { return !alive(pid) })
	}
	if rec := h.log.callRecord(t, "spawn"); rec["result"] != "cancelled" {
		t.Errorf("call log = %v", rec)
	}
	if res := testsupport.Call(t, other, "echo", args("subject", "still here")); res.IsError {
		t.Errorf("the other session after the DELETE: %s", text(res))
	}
}
