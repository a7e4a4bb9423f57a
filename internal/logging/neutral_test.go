package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// hostile is what a client can put in a logged value: a CSI that clears
// the screen, an OSC that retitles the terminal, a C1 CSI, DEL, a
// bidirectional override, an escaped command line (whose \x1b tint's
// colour turns into ESC) and, after a replacement character, a tail that
// must not be lost.
const hostile = "a\x1b[2Jb\x1b]0;title\x07c\u009b31md\x7fe\u202ef $'\\x1b[31m' \ufffd tail"

// raw are the characters that must never be written as themselves.
var raw = []string{"\x1b", "\x07", "\u009b", "\x7f", "\u202e"}

func TestNoLogFormatWritesControlOrFormatCharactersAsThemselves(t *testing.T) {
	for _, tc := range []struct {
		format string
		colour bool
	}{{"json", false}, {"text", false}, {"text", true}} {
		var buf bytes.Buffer
		log := slog.New(handler(&buf, slog.LevelInfo, tc.format, tc.colour))
		log.Info("tool call "+hostile, "tool", hostile, "err", errors.New(hostile), slog.Group("decision", "detail", hostile))
		out := buf.String()
		if tc.colour {
			// tint colours the level and keys: drop its own sequences.
			for _, c := range []string{"\x1b[2m", "\x1b[0m", "\x1b[22m", "\x1b[92m", "\x1b[91m"} {
				out = strings.ReplaceAll(out, c, "")
			}
		}
		for _, c := range raw {
			if strings.Contains(out, c) {
				t.Errorf("%s (colour %v) wrote %q raw: %q", tc.format, tc.colour, c, out)
			}
		}
		if n := strings.Count(out, "tail"); n != 5 {
			t.Errorf("%s (colour %v): %d of 5 texts kept their tail: %q", tc.format, tc.colour, n, out)
		}
		if tc.format == "json" {
			var rec map[string]any
			if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &rec); err != nil {
				t.Fatalf("not one JSON object: %v: %q", err, out)
			}
			if got, _ := rec["tool"].(string); !strings.Contains(got, `e\u{202e}f`) {
				t.Errorf("tool = %q, want the override shown as \\u{202e}", got)
			}
		}
	}
}

// Plain values are written as before: only what needs it changes.
func TestPlainLogValuesAreWrittenAsTheyAre(t *testing.T) {
	var buf bytes.Buffer
	slog.New(handler(&buf, slog.LevelInfo, "text", false)).Info("plain", "k", "v", "spaced", "a b", "argv", "/bin/nats kv get é")
	for _, want := range []string{"plain", "k=v", `spaced="a b"`, `argv="/bin/nats kv get é"`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log %q lacks %s", buf.String(), want)
		}
	}
}
