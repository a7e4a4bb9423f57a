package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/elicit"
)

// One client answering gated calls as fast as it can (a decline needs no
// person) fills only its own share of the record of used approvals, at the
// real bound: another client's approval still runs.
func TestOneClientFloodingDeclinesDoesNotDenyOthers(t *testing.T) {
	h := startHTTP(t, "")
	var mu sync.Mutex
	var asked []string
	flooder := h.connect(t, client{protocol: legacyProtocol, elicit: answer(&mcp.ElicitResult{Action: "decline"}, &asked, &mu)})
	honest := h.connect(t, client{protocol: legacyProtocol, elicit: answer(yes, &asked, &mu)})
	dir := t.TempDir()
	full := false
	for i := 0; i <= elicit.DefaultReplayPerClient && !full; i++ {
		res := testsupportCall(t, flooder, "touch", args("path", filepath.Join(dir, "flood")))
		if !res.IsError {
			t.Fatalf("a declined call ran: %s", text(res))
		}
		full = strings.Contains(text(res), "the record of used approvals is full")
	}
	if !full {
		t.Fatalf("%d declines by one client were all recorded: its share does not bound it", elicit.DefaultReplayPerClient+1)
	}
	path := filepath.Join(dir, "honest")
	res, err := honest.CallTool(context.WithoutCancel(t.Context()), &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
	if err != nil || res.IsError || !exists(path) {
		t.Fatalf("another client's approval after the flood: %v %s", err, text(res))
	}
}
