package server

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/discovery"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
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
	if len(got) > 2*maxEchoed+500 {
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

// The Host and Origin headers are the client's to choose; the refusal
// repeats them quoted and cut, never a formatting character as written.
func TestHTTPRefusalsRepeatTheClientsHeadersEscapedAndCut(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	h := handlerFor(t, s, HTTPConfig{Addr: "127.0.0.1:0"})
	hostile := "evil\u202e" + strings.Repeat("x", 10_000) + ".example"
	for name, headers := range map[string]struct {
		host   string
		origin string
	}{
		"host":   {hostile, ""},
		"origin": {"127.0.0.1:8080", "http://" + hostile},
	} {
		hdr := map[string]string{}
		if headers.origin != "" {
			hdr["Origin"] = headers.origin
		}
		resp := serveOn(t, h, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, http.MethodPost, "/mcp", headers.host, hdr)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "\u202e") || len(body) > 1000 {
			t.Errorf("%s: status %d, %d bytes: %.300q", name, resp.StatusCode, len(body), body)
		}
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
