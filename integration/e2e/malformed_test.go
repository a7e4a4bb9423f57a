package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestMalformedLinesAreAnsweredAndTheServerKeepsServing sends the binary
// lines no client should send while a command runs: each gets the JSON-RPC
// error with a null id, the running command is not touched, a call after
// them is served, and the server still exits cleanly when stdin closes,
// killing the command then.
func TestMalformedLinesAreAnsweredAndTheServerKeepsServing(t *testing.T) {
	srv := startRaw(t, serveArgs(fixtureBin)...)
	peer, stdin, logs, exited := srv.peer, srv.stdin, srv.logs, srv.exited
	peer.Initialize(1, legacyProtocol)

	pidFile := filepath.Join(t.TempDir(), "pids")
	peer.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spawn","arguments":{"context":"e2e","for":"1h","pid-file":%q}}}`, pidFile))
	waitFor(t, "the command to start", func() bool { return fileReady(pidFile) })
	pids := readPids(t, pidFile)

	bad := []struct {
		line string
		code float64
	}{
		{"hello", -32700},
		{"42", -32600},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`, -32600},
		{`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, -32600},
	}
	for i, b := range bad {
		peer.Send(b.line)
		msg := peer.Next(fmt.Sprintf("the answer to bad line %d", i))
		e, _ := msg["error"].(map[string]any)
		if id, ok := msg["id"]; !ok || id != nil || e == nil || e["code"] != b.code {
			t.Fatalf("bad line %.40q got %.300s, want error %v with id null", b.line, fmt.Sprint(msg), b.code)
		}
	}
	resp := peer.Call(5, "tools/call", map[string]any{"name": "echo", "arguments": args("subject", "after")})
	if r, _ := resp["result"].(map[string]any); r == nil || r["isError"] == true {
		t.Fatalf("the call after the bad lines got %.300s, want a result", fmt.Sprint(resp))
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("pid %d of the command in flight died across the bad lines", pid)
		}
	}
	if n := len(logs.Records("refused a malformed message from the client")); n != len(bad) {
		t.Errorf("%d refusals logged, want %d", n, len(bad))
	}

	stdin.Close()
	if err := await(t, exited, "fisk-mcp to exit after stdin closed"); err != nil {
		t.Fatalf("fisk-mcp exited with %v", err)
	}
	for _, pid := range pids {
		waitFor(t, "pid to be gone", func() bool { return !alive(pid) })
	}
}
