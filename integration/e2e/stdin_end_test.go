package e2e

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestClosingStdinWhileAnApprovalWaitsAnswersTheCallAndRunsNothing asks
// a legacy client, which elicits, to approve a gated call and closes the
// server's stdin instead of answering: the call is answered at once,
// refused, nothing runs, and the server exits cleanly, without waiting out
// the approval's two minutes.
func TestClosingStdinWhileAnApprovalWaitsAnswersTheCallAndRunsNothing(t *testing.T) {
	srv := startRaw(t, serveArgs(fixtureBin)...)
	peer, stdin, exited := srv.peer, srv.stdin, srv.exited
	resp := peer.Call(1, "initialize", map[string]any{
		"protocolVersion": legacyProtocol,
		"capabilities":    map[string]any{"elicitation": map[string]any{}},
		"clientInfo":      map[string]any{"name": "raw", "version": "1"},
	})
	if resp["error"] != nil {
		t.Fatalf("initialize: %v", resp["error"])
	}
	peer.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	marker := filepath.Join(t.TempDir(), "touched")
	peer.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"touch","arguments":{"context":"e2e","path":%q}}}`, marker))
	for {
		if msg := peer.Next("the approval question"); msg["method"] == "elicitation/create" {
			break
		}
	}
	stdin.Close()

	resp = peer.Response(2)
	r, _ := resp["result"].(map[string]any)
	if r == nil || r["isError"] != true {
		t.Fatalf("the call whose approval was pending got %.300s, want an isError result", fmt.Sprint(resp))
	}
	if err := await(t, exited, "fisk-mcp to exit after stdin closed"); err != nil {
		t.Fatalf("fisk-mcp exited with %v", err)
	}
	if exists(marker) {
		t.Error("the gated command ran though nobody approved it")
	}
}
