package server

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A model chooses a call's argv; a huge one must not make a huge log line,
// and the line must say how much it left out.
func TestHugeArgvMakesABoundedLogLine(t *testing.T) {
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	items := make([]any, 1_000_000)
	for i := range items {
		items[i] = "x"
	}
	_, _ = connect(t, s, legacyVersion, nil).CallTool(t.Context(), &mcp.CallToolParams{Name: "batch", Arguments: map[string]any{"context": "test", "items": items}})
	lines := logs.records("tool call")
	if len(lines) != 1 {
		t.Fatalf("%d call lines, want 1:\n%.2000s", len(lines), logs)
	}
	if n := len(logs.String()); n > 4*MaxLogField {
		t.Errorf("the log holds %d bytes for one call, want a few kilobytes at most", n)
	}
	for _, field := range []string{"argv", "err"} {
		v, _ := lines[0][field].(string)
		if v == "" {
			continue
		}
		if len(v) > MaxLogField+64 || !strings.Contains(v, " bytes elided]… ") {
			t.Errorf("%s holds %d bytes (%.80q...), want at most %d with an elision marker", field, len(v), v, MaxLogField)
		}
	}
	if argv, _ := lines[0]["argv"].(string); !strings.HasPrefix(argv, fixtureBin+" batch") {
		t.Errorf("argv = %.80q..., want the command's start kept", argv)
	}
}

func TestLogFieldCutsBetweenCharacters(t *testing.T) {
	s := strings.Repeat("é", MaxLogField)
	got := logField(s)
	if !utf8.ValidString(got) || len(got) >= len(s) {
		t.Errorf("logField of %d bytes = %d bytes, valid UTF-8 %v", len(s), len(got), utf8.ValidString(got))
	}
	if short := "short"; logField(short) != short {
		t.Errorf("logField(%q) = %q", short, logField(short))
	}
}
