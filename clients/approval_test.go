package clients

import (
	"slices"
	"strings"
	"testing"
)

var browserArgs = []string{"--approval=browser"}

// Unless the person chose, the clients whose person cannot be asked through
// MCP get --approval=browser when the app has gated tools, and the clients
// that ask keep the default; the note says which and why.
func TestAdviseApprovalChoosesByWhatTheClientDoes(t *testing.T) {
	cases := []struct {
		client string
		args   []string
		note   string
	}{
		{"claude-desktop", browserArgs, "Claude Desktop cannot ask through MCP (it declares no elicitation), so gated tools are approved in your browser (--approval=browser): a page opens"},
		{"cursor", browserArgs, "Cursor declares MCP elicitation but drops its requests from stdio servers"},
		{"codex", browserArgs, "Codex advertises MCP elicitation but declines every question"},
		{"windsurf", browserArgs, "Windsurf cannot ask through MCP"},
		{"gemini", browserArgs, "Gemini CLI cannot ask through MCP"},
		{"claude-code", nil, "Claude Code asks through MCP elicitation, so gated tools are approved in Claude Code itself (--approval elicit, the default)"},
		{"vscode", nil, "VS Code asks through MCP elicitation"},
		{"copilot", nil, "Copilot CLI asks through MCP elicitation, so gated tools are approved in Copilot CLI itself (--approval elicit, the default); in -p (prompt) mode Copilot CLI declines every question"},
		{"opencode", browserArgs, "opencode cannot ask through MCP"},
	}
	for _, tc := range cases {
		t.Run(tc.client, func(t *testing.T) {
			for _, gated := range []int{3, -1} {
				a := AdviseApproval(tc.client, gated, ApprovalElicit, false)
				if !slices.Equal(a.Args, tc.args) {
					t.Errorf("gated %d: args = %q, want %q", gated, a.Args, tc.args)
				}
				if !strings.Contains(a.Note, tc.note) {
					t.Errorf("gated %d: note = %q, want one with %q", gated, a.Note, tc.note)
				}
				if uncounted := strings.Contains(a.Note, "could not be counted"); uncounted != (gated < 0) {
					t.Errorf("gated %d: note %q says the tools were not counted: %v", gated, a.Note, uncounted)
				}
			}
			if a := AdviseApproval(tc.client, 0, ApprovalElicit, false); len(a.Args) != 0 || a.Note != "" {
				t.Errorf("without gated tools: %+v, want nothing", a)
			}
		})
	}
}

// A person's --approval stays; the note says when it cannot work in the
// client, and what to pass instead.
func TestAdviseApprovalKeepsAChosenMode(t *testing.T) {
	cases := []struct {
		name, client, mode string
		note               string
	}{
		{"elicit in Claude Desktop", "claude-desktop", ApprovalElicit, "keeps your --approval elicit: Claude Desktop cannot ask through MCP (it declares no elicitation), so gated tools are refused: pass --approval browser"},
		{"elicit in Cursor", "cursor", ApprovalElicit, "so the question never reaches you, and gated calls are refused when --elicit-timeout passes: pass --approval browser"},
		{"elicit in Codex", "codex", ApprovalElicit, "so gated calls are refused as declined: pass --approval browser"},
		{"elicit-or-browser in Codex", "codex", ApprovalElicitOrBrowser, "keeps your --approval elicit-or-browser: Codex advertises MCP elicitation but declines every question, so gated calls are refused as declined"},
		{"elicit-or-browser in Claude Desktop", "claude-desktop", ApprovalElicitOrBrowser, "keeps your --approval elicit-or-browser: Claude Desktop cannot ask through MCP (it declares no elicitation), so gated tools are approved in your browser"},
		{"browser in Cursor", "cursor", ApprovalBrowser, "keeps your --approval browser: gated tools are approved in your browser"},
		{"browser in VS Code", "vscode", ApprovalBrowser, "keeps your --approval browser"},
		{"elicit in VS Code", "vscode", ApprovalElicit, "keeps your --approval elicit: VS Code asks through MCP elicitation"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := AdviseApproval(tc.client, 2, tc.mode, true)
			if len(a.Args) != 0 {
				t.Errorf("args = %q, want the person's choice alone", a.Args)
			}
			if !strings.Contains(a.Note, tc.note) {
				t.Errorf("note = %q, want one with %q", a.Note, tc.note)
			}
			if works := !strings.Contains(a.Note, "pass --approval browser"); works != (tc.mode == ApprovalBrowser || Known[tc.client].Approval() == ApprovalElicit || tc.name == "elicit-or-browser in Claude Desktop") {
				t.Errorf("note %q misjudges whether --approval %s works in %s", a.Note, tc.mode, tc.client)
			}
		})
	}
	if a := AdviseApproval("claude-desktop", 0, ApprovalElicit, true); a.Note != "" {
		t.Errorf("without gated tools the note is %q", a.Note)
	}
}

// Every known client says what it does with elicitation, and the approval
// each gets is browser exactly where that is not asking.
func TestEveryClientSaysHowItsPersonApproves(t *testing.T) {
	want := map[string]string{
		"claude-desktop": ApprovalBrowser, "cursor": ApprovalBrowser, "codex": ApprovalBrowser,
		"windsurf": ApprovalBrowser, "gemini": ApprovalBrowser, "opencode": ApprovalBrowser,
		"claude-code": ApprovalElicit, "vscode": ApprovalElicit, "copilot": ApprovalElicit,
	}
	for _, name := range Names {
		c := Known[name]
		if got := c.Approval(); got != want[name] {
			t.Errorf("%s: approval %q, want %q", name, got, want[name])
		}
		if c.Elicitation.what() == "" || (c.Approval() == ApprovalBrowser) != (c.Elicitation.refusal() != "") {
			t.Errorf("%s: elicitation %d is not described", name, c.Elicitation)
		}
	}
}

// Applying approval advice leaves the deferral flags alone, and replaces
// an --approval=... of the arguments.
func TestAdviceReplacesOnlyTheFlagItSets(t *testing.T) {
	args := []string{"--defer=never", "--approval=elicit", "--approval-opener=firefox"}
	got := Advice{Args: browserArgs}.Apply(args)
	if want := []string{"--defer=never", "--approval-opener=firefox", "--approval=browser"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
