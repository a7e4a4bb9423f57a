package server

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/discovery"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/echo"
)

// describe_tools repeats an unknown name inside its JSON answer. JSON
// escapes the C0 controls itself, but a bidirectional override or a
// zero-width space would reach the model as written.
func TestDescribeToolsRepeatsAnUnknownNameEscapedAndCut(t *testing.T) {
	s, _ := newServer(t, Config{Defer: DeferAlways}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, nil)
	names := []any{"echo\u202e\u200bx\x1b[31m", strings.Repeat("n", 10_000)}
	res := call(t, cs, discovery.DescribeTools, map[string]any{"names": names})
	got := text(res)
	for _, c := range []string{"\u202e", "\u200b", "\x1b"} {
		if strings.Contains(got, c) {
			t.Errorf("the answer holds %q raw: %q", c, got)
		}
	}
	if !strings.Contains(got, `echo\\u202e\\u200bx\\x1b[31m`) {
		t.Errorf("the answer does not show the name escaped: %q", got)
	}
	if len(got) > 2*echo.Max+500 {
		t.Errorf("the answer repeats %d bytes of two names", len(got))
	}
}

// A validation message shows 60 characters of a rejected value; when the
// value is a long secret of the server's, those 60 characters are most of
// it, and must be hidden in the result and the log as the whole is.
func TestARejectedValueCutShortDoesNotRevealASecret(t *testing.T) {
	const token = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	s, logs := newServer(t, Config{Redactor: execrunner.NewRedactor(token)}, fixtureSet(t, exposure.Policy{}))
	res := call(t, connect(t, s, legacyVersion, nil), "echo", map[string]any{"context": "test", "subject": "s", "count": token})
	if !res.IsError || !strings.Contains(text(res), `/count: expected integer, got string "[redacted]…"`) {
		t.Errorf("result %q, want the cut value redacted", text(res))
	}
	if strings.Contains(logs.String(), token[:execrunner.MinSecretLen]) {
		t.Errorf("the log shows the secret's start:\n%s", logs)
	}
}

// The SDK's reason for refusing a line quotes what it could not read; the
// answer repeats at most a few hundred bytes of it.
func TestARefusedStdioLineIsAnsweredWithAShortReason(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	peer, _, _ := rawStdio(t, s)
	peer.Send(`{"jsonrpc":"` + strings.Repeat("v", 100_000) + `","id":1,"method":"ping"}`)
	msg := peer.Next("the answer to a long version tag")
	refusal(t, "a long version tag", msg, -32600)
	e, _ := msg["error"].(map[string]any)
	if m, _ := e["message"].(string); len(m) > 1000 || !strings.Contains(m, "invalid message version tag") {
		t.Errorf("error message of %d bytes: %.200q", len(m), m)
	}
}
