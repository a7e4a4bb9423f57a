// Package echo bounds what an answer repeats of what a caller gave (a
// query, a tool name, an argument's name, a Host header): enough to
// recognise it by, quoted or escaped so that no control character reaches
// the reader raw, and cut at a character boundary. It neither redacts nor
// decides what is repeated; callers choose that.
package echo

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Max bounds the bytes of what a caller gave that an answer repeats.
const Max = 200

// Quoted is s as an answer repeats it: quoted, so that no control
// character reaches the model raw, and cut to Max bytes (see Clip), with
// "…" after the quote when it was cut.
func Quoted(s string) string {
	cut, clippedOff := Clip(s, Max)
	if clippedOff {
		return strconv.Quote(cut) + "…"
	}
	return strconv.Quote(cut)
}

// InJSON is s as a JSON answer repeats it: cut (see Clip), and, when it
// holds a character that is not printable, escaped as Quoted escapes it
// but without the quotes; JSON escapes the C0 controls, but would carry
// the others (a bidirectional override, a zero-width space) to the model
// raw.
func InJSON(s string) string {
	cut, clippedOff := Clip(s, Max)
	if strings.ContainsFunc(cut, func(r rune) bool { return !unicode.IsPrint(r) }) {
		q := strconv.Quote(cut)
		cut = q[1 : len(q)-1]
	}
	if clippedOff {
		cut += "…"
	}
	return cut
}

// Clip is s cut at a character boundary to at most max bytes, and
// whether anything was cut off.
func Clip(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}
