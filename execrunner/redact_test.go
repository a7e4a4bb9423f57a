package execrunner

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestRedactorReplacesSecretsWhole(t *testing.T) {
	r := NewRedactor("abcdefgh", "abcdefgh-ijkl", "ijkl-mnopqrst", "tiny", "", "abcdefgh")
	tests := []struct{ name, in, want string }{
		{"no secret leaves the text alone", "nothing to see", "nothing to see"},
		{"a secret", "key abcdefgh end", "key [redacted] end"},
		{"a secret containing another is replaced whole", "x abcdefgh-ijkl y", "x [redacted] y"},
		{"overlapping secrets become one replacement", "abcdefgh-ijkl-mnopqrst", "[redacted]"},
		{"every occurrence", "abcdefgh abcdefgh", "[redacted] [redacted]"},
		{"short values are not secrets", "tiny", "tiny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Redact(tt.in); got != tt.want {
				t.Fatalf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactorOverlappingOccurrencesOfOneSecret(t *testing.T) {
	r := NewRedactor("abababab")
	if got := r.Redact("xabababababy"); got != "x[redacted]y" {
		t.Fatalf("Redact = %q", got)
	}
}

func TestNilRedactorRedactsNothing(t *testing.T) {
	var r *Redactor
	if got := r.Redact("abcdefgh"); got != "abcdefgh" {
		t.Fatalf("Redact = %q", got)
	}
}

func TestNewRedactorIgnoresValuesShorterThanEightCharacters(t *testing.T) {
	// Seven characters of more than seven bytes are still too short.
	r := NewRedactor("ééééééé", "1234567")
	if got := r.Redact("ééééééé 1234567"); got != "ééééééé 1234567" {
		t.Fatalf("Redact = %q", got)
	}
}

// Error texts quote the value they reject; a secret that quoting rewrites
// must be hidden in its quoted form too.
func TestRedactorHidesQuotedForms(t *testing.T) {
	const secret = `sk"ant\secret` + "\x01"
	r := NewRedactor(secret)
	for _, text := range []string{fmt.Sprintf("got %q", secret), "got " + mustJSON(t, secret)} {
		got := r.Redact(text)
		if strings.Contains(got, `sk\"ant`) || !strings.Contains(got, Redacted) {
			t.Errorf("Redact(%s) = %s, want the quoted secret redacted", text, got)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A message cuts a long value it quotes and marks the cut with an
// ellipsis; the start of a secret before one is hidden, but not a start
// too short to be one, nor a start that no ellipsis follows.
func TestRedactorHidesTheStartOfASecretThatAMessageCut(t *testing.T) {
	const secret = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789"
	r := NewRedactor(secret)
	for in, want := range map[string]string{
		`got "` + secret[:60] + `…"`:           `got "[redacted]…"`,
		`got "` + secret[:40] + `…" and more`:  `got "[redacted]…" and more`,
		"x" + secret[:8] + "…":                 "x[redacted]…",
		"x" + secret[:7] + "…":                 "x" + secret[:7] + "…",
		"x" + secret[:20] + " and then …":      "x" + secret[:20] + " and then …",
		secret[:30] + "… " + secret[:30] + "…": "[redacted]… [redacted]…",
		"whole " + secret + "…":                "whole [redacted]…",
		`quoted "` + secret[:50] + `"…`:        `quoted "[redacted]"…`,
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
