package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestRequestsPipedToStdinAreAllAnswered runs fisk-mcp the way
// `printf '...' | fisk-mcp serve APP` does: every request is written at
// once and stdin ends. Each is answered with a result, the list in full;
// none with the bare "context canceled" error (code 0) a request
// cancelled before it began used to get. A call the client left before
// it ran may be refused, but as a result that says nothing ran.
func TestRequestsPipedToStdinAreAllAnswered(t *testing.T) {
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + legacyProtocol + `","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"context":"e2e","subject":"piped"}}}`,
	}, "\n") + "\n"
	// What the SDK's own client lists.
	listed, err := startStdio(t, client{protocol: legacyProtocol}, fixtureBin).cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		ctx, cancel := context.WithTimeout(t.Context(), patience)
		cmd := exec.CommandContext(ctx, fiskMCP, serveArgs(fixtureBin)...)
		cmd.Stdin = strings.NewReader(input)
		var logs bytes.Buffer
		cmd.Stderr = &logs
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("round %d: fisk-mcp: %v\n%s", round, err, logs.String())
		}
		answers := map[float64]map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var msg map[string]any
			if err := json.Unmarshal([]byte(line), &msg); err != nil {
				t.Fatalf("round %d: stdout carries a line that is not JSON: %.200s", round, line)
			}
			id, _ := msg["id"].(float64)
			answers[id] = msg
		}
		for id := 1.0; id <= 4; id++ {
			if msg := answers[id]; msg == nil || msg["error"] != nil || msg["result"] == nil {
				t.Fatalf("round %d: request %v was answered with %.300v, want a result", round, id, msg)
			}
		}
		if tools, _ := answers[2]["result"].(map[string]any)["tools"].([]any); len(tools) != len(listed.Tools) {
			t.Errorf("round %d: tools/list listed %d tools, want %d", round, len(tools), len(listed.Tools))
		}
		res := answers[4]["result"].(map[string]any)
		if res["isError"] == true && !strings.Contains(fmt.Sprint(res["content"]), "nothing ran") && !strings.Contains(fmt.Sprint(res["content"]), "process group was killed") {
			t.Errorf("round %d: the echo call failed with %.300v, want its output or a refusal saying nothing ran", round, res)
		}
	}
}
