package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// TestStdoutCarriesOnlyTheProtocol records every byte the binary writes to
// stdout during a session that exercises everything that prints — commands
// writing to stdout and stderr, failures, approval questions, warnings at
// startup — and requires each line to be a JSON-RPC 2.0 message.
func TestStdoutCarriesOnlyTheProtocol(t *testing.T) {
	cmd, stdin, stdout, logs := startPiped(t, "serve", "--log-level", "debug", "--confirm-tag", "no-such-tag", "--scrub-env", "X", fixtureBin)
	var recorded testsupport.LogBuffer
	transport := &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(stdout, &recorded)), Writer: stdin}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, client{
		protocol: legacyProtocol, // the server itself sends elicitation requests on stdout
		elicit:   answer(yes, new([]string), new(sync.Mutex)),
	}.options()).Connect(t.Context(), transport, &mcp.ClientSessionOptions{ProtocolVersion: legacyProtocol})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{cs: cs, log: logs, cmd: cmd}

	s.call(t, "emit", args("lines", 50))
	s.call(t, "emit", args("bytes", 200000))
	s.call(t, "echo", args("subject", "hello\nworld"))
	s.call(t, "echo", args("mode", "bogus"))
	s.call(t, "exit", args("code", 2))
	s.call(t, "env", args())
	s.call(t, "touch", args("path", filepath.Join(t.TempDir(), "f")))
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("fisk-mcp exited with %v after stdin closed\n%s", err, logs.String())
	}

	out := recorded.Bytes()
	if len(out) == 0 {
		t.Fatal("nothing recorded")
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	lines := 0
	for sc.Scan() {
		lines++
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Fatalf("stdout line %d is not a JSON-RPC message: %.200q", lines, sc.Text())
		}
	}
	if !bytes.HasSuffix(out, []byte("\n")) {
		t.Error("stdout does not end with a complete message")
	}
	if lines < 9 {
		t.Errorf("only %d messages recorded", lines)
	}
}
