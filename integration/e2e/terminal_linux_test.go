package e2e

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// TestServeOnATerminalSaysItIsForMCPClients: a person who starts serve at a
// terminal is told what it is and how to try it, instead of a silent prompt
// that answers typed text with JSON-RPC errors; a client's pipe is not.
func TestServeOnATerminalSaysItIsForMCPClients(t *testing.T) {
	isNotice := func(r map[string]any) bool {
		msg, _ := r["msg"].(string)
		return strings.HasPrefix(msg, "stdin is a terminal: fisk-mcp serve is an MCP server speaking JSON-RPC on stdin and stdout")
	}

	_, pts := testsupport.OpenPTY(t)
	cmd := exec.Command(fiskMCP, serveArgs(fixtureBin)...)
	log := newLogBuffer()
	cmd.Stdin, cmd.Stderr = pts, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	rec := log.waitRecord(t, "the terminal notice", isNotice)
	for _, want := range []string{"fisk-mcp tools APP", "--http"} {
		if !strings.Contains(rec["msg"].(string), want) {
			t.Errorf("the notice does not say %q: %s", want, rec["msg"])
		}
	}

	// A client's pipe: the notice would precede serving, so by the time
	// the session is up it would be in the log.
	s := startStdio(t, client{protocol: modernProtocol}, fixtureBin)
	for _, r := range s.log.records() {
		if isNotice(r) {
			t.Errorf("serve over a pipe took it for a terminal: %v", r)
		}
	}
}
