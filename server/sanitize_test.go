package server

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// The env command prints a variable holding what a hostile file or log
// line could hold: colours, a hyperlink, a clipboard write, a bell, a DEL
// and a bidirectional override. None of it may reach the client as
// written, unless the operator asked for raw output.
func TestCommandOutputReachesClientsSanitised(t *testing.T) {
	const fancy = "FANCY=\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ \x1b]52;c;cm0gLXJm\x07 bell\x07 del\x7f \u202eevil"
	env := execrunner.NewEnvironment([]string{fancy}, execrunner.EnvRule{})
	for _, raw := range []bool{false, true} {
		s, _ := newServer(t, Config{Env: env, RawOutput: raw}, fixtureSet(t, exposure.Policy{}))
		res := call(t, connect(t, s, legacyVersion, nil), "env", map[string]any{"context": "test"})
		out := envelope(t, res).Output
		if raw {
			if !strings.Contains(out, "\x1b[31mred") || !strings.Contains(out, "\u202e") {
				t.Errorf("raw output %q, want the bytes as written", out)
			}
			continue
		}
		if !strings.Contains(out, "FANCY=red link  bell del \ufffdevil\n") {
			t.Errorf("output %q, want FANCY's text without its controls", out)
		}
		for _, c := range []string{"\x1b", "\x07", "\x7f", "\u202e"} {
			for _, where := range []string{out, text(res)} {
				if strings.Contains(where, c) {
					t.Errorf("%q reached the client in %q", c, where)
				}
			}
		}
		if strings.Contains(text(res), `\u001b`) {
			t.Errorf("the text content holds an escaped ESC: %s", text(res))
		}
	}
}
