package execrunner

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeOutputRemovesWhatATerminalWouldInterpret(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is left alone", "a\tb\nc é €", "a\tb\nc é €"},
		{"colours", "\x1b[1;31mred\x1b[0m done", "red done"},
		{"cursor moves and private modes", "\x1b[2J\x1b[?25lhidden\x1b[H", "hidden"},
		{"OSC 8 link ended by ST", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"OSC 52 clipboard ended by BEL", "\x1b]52;c;cm0gLXJmIH4=\x07after", "after"},
		{"an unterminated string ends at the newline", "\x1b]0;title\nnext line", "\nnext line"},
		{"DCS and APC", "\x1bPq#0;2\x1b\\a\x1b_app\x1b\\b", "ab"},
		{"two-byte and charset escapes", "\x1b7x\x1b8\x1b(By", "xy"},
		{"a lone ESC", "a\x1b", "a"},
		{"controls", "n\x00u\x07l\x08l\x7f\x0c", "null"},
		{"carriage returns", "10%\r20%\r\nok\r\n", "10%\n20%\nok\n"},
		{"C1 controls", "a\u009b31mb\u0085c", "a31mbc"},
		{"bidirectional overrides", "abc\u202edcb\u202c \u2066x\u2069 \u200f", "abc\ufffddcb\ufffd \ufffdx\ufffd \ufffd"},
		{"arabic letter mark", "a\u061cb", "ab"},
		{"invalid bytes", "a\xffb", "ab"},
		{"line and paragraph separators", "a\u2028b\u2029c", "a\nb\nc"},
		{"invisible characters", "r\u200bm\ufeff -\u2060rf\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065 x", "rm -rf x"},
		{"joiners that scripts and emoji need", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 \U0001F468\u200d\U0001F469", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 \U0001F468\u200d\U0001F469"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SanitizeOutput(tt.in)
			if got != tt.want {
				t.Errorf("SanitizeOutput(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if len(got) > len(tt.in) || !utf8.ValidString(got) {
				t.Errorf("SanitizeOutput(%q) = %q: longer than its input or not UTF-8", tt.in, got)
			}
		})
	}
}

// A real command's escapes never reach the result unless asked for, and a
// secret that only escape sequences held apart is still redacted.
func TestRunSanitisesOutputUnlessRaw(t *testing.T) {
	const secret = "abcdefgh-secret"
	printed := "\x1b[31mred\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07 \u202eevil\x07 abcdefgh\x1b[0m-secret"
	c := helperCmd("echo", printed)
	c.Redactor = NewRedactor(secret)
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if want := "red link \ufffdevil [redacted]\n"; res.Output != want {
		t.Errorf("Output = %q, want %q", res.Output, want)
	}
	c.RawOutput = true
	res, err = Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "\x1b[31mred") || !strings.Contains(res.Output, "\u202e") {
		t.Errorf("raw Output = %q, want the escapes as written", res.Output)
	}
}
