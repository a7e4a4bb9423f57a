package echo

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEchoQuotesEscapesAndCutsAtACharacter(t *testing.T) {
	long := strings.Repeat("é", Max) // two bytes each: the cut falls inside one
	for _, c := range []struct {
		name, in, quoted, inJSON string
	}{
		{"short", "list users", `"list users"`, "list users"},
		{"control", "a\x1b[31mb", `"a\x1b[31mb"`, `a\x1b[31mb`},
		{"bidi", "a\u202eb", `"a\u202eb"`, `a\u202eb`},
		{"long", long, `"` + long[:Max] + `"…`, long[:Max] + "…"},
	} {
		if got := Quoted(c.in); got != c.quoted {
			t.Errorf("%s: Quoted = %q, want %q", c.name, got, c.quoted)
		}
		if got := InJSON(c.in); got != c.inJSON {
			t.Errorf("%s: InJSON = %q, want %q", c.name, got, c.inJSON)
		}
	}
	if cut, ok := Clip("aé", 2); cut != "a" || !ok || !utf8.ValidString(cut) {
		t.Errorf(`Clip("aé", 2) = %q, %v; want "a", true`, cut, ok)
	}
	if cut, ok := Clip("abc", 3); cut != "abc" || ok {
		t.Errorf(`Clip("abc", 3) = %q, %v; want it whole`, cut, ok)
	}
}
