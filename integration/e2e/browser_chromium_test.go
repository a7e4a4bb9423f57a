package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/chromium"
)

// TestChromiumApprovesAndDeniesACallOfTheBuiltServer: the built server, as
// Claude Desktop starts it with --approval browser, opens its page; a real
// headless Chromium shows it, and a click on Approve runs the command, on
// Deny does not, and closing the tab refuses it: proven by the file touch
// creates.
func TestChromiumApprovesAndDeniesACallOfTheBuiltServer(t *testing.T) {
	for _, c := range []struct {
		action string // a button to click, or "" to close the tab
		runs   bool
		says   string
	}{
		{"#approve", true, ""},
		{"#deny", false, "the user declined"},
		{"", false, "dismissed the approval request"},
	} {
		t.Run(strings.TrimPrefix(c.action, "#")+map[bool]string{true: "close"}[c.action == ""], func(t *testing.T) {
			browserCtx := chromium.Start(t)
			tab, closeTab := chromium.NewTab(t, browserCtx)
			o := newPageOpener(t)
			s := startStdio(t, client{protocol: modernProtocol}, "--name", "desk", "--approval", "browser", "--approval-opener", o.script, fixtureBin)
			path := filepath.Join(t.TempDir(), "touched")
			results := callInBackground(t, s.cs, &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
			if status := chromium.Navigate(t, tab, await(t, o.urls, "the approval page to be opened")); status != 200 {
				t.Fatalf("the approval page answered %d", status)
			}
			if got := chromium.Text(t, tab, "#command"); !strings.Contains(got, path) || !strings.Contains(got, "touch") {
				t.Errorf("the page shows the command %q, want the touch of %s", got, path)
			}
			if c.action != "" {
				chromium.Click(t, tab, c.action+":enabled") // Approve is armed a moment after the load
			} else {
				closeTab()
			}
			res := await(t, results, "the call to end")
			if res == nil {
				t.Fatal("no result")
			}
			if exists(path) != c.runs || res.IsError == c.runs {
				t.Fatalf("file exists %v, isError %v, want runs=%v: %s", exists(path), res.IsError, c.runs, text(res))
			}
			if c.says != "" && !strings.Contains(text(res), c.says) {
				t.Errorf("result %q does not say %q", text(res), c.says)
			}
		})
	}
}
