// Package visible writes text so that every character of it can be seen
// for what it is: what a person reads in an approval prompt, a page or a
// log must not hold a character that acts instead of showing (an escape
// sequence, a bidirectional override, a zero-width space). Each such
// character is written as text naming it, \xNN for ASCII and for bytes
// that are not UTF-8, \u{XXXX} for the rest, and \n, \r and \t by their
// usual names. What counts as such is the caller's choice (Escape's
// shown); nothing is cut, quoted or redacted here.
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Graphic reports the runes shown as themselves by default: the ASCII
// space and every printable rune (letters, marks, numbers, punctuation,
// symbols), U+FFFD aside, which is what a byte that is not UTF-8 decodes
// to.
func Graphic(r rune) bool {
	return r == ' ' || (unicode.IsPrint(r) && r != utf8.RuneError)
}

// Escape returns s with every rune for which shown is false, and every
// byte that is not UTF-8, written as text naming it. s comes back as it is
// when nothing needs writing so.
func Escape(s string, shown func(rune) bool) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !shown(r) }) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case shown(r):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u{%04x}`, r)
		}
		i += size
	}
	return b.String()
}

// Cut returns s cut to at most n runes, the last of them "…" where it was
// cut: what a person or a model is shown of text someone else chose.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}
