package logging

import (
	"log/slog"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/internal/visible"
)

// The JSON handler escapes the C0 controls, quotes and line separators,
// but writes DEL, the C1 controls (U+009B is a CSI to many terminals) and
// the formatting characters as they are. tint quotes a value that needs it
// with strconv.Quote, which escapes everything not printable, but on a
// colour terminal it turns every \x1b of the quoted text back into a raw
// ESC, so that coloured values keep their colour: an escape sequence a
// client put in a tool's name, or even the four characters \x1b in an
// escaped command line, reached the terminal as a working sequence. Without
// colour it drops escape sequences, and the rest of a value after a byte
// that is not UTF-8.

// neutralJSON rewrites, for the JSON handler, every string value holding
// a character the handler would write raw but that is not printable: each
// such character becomes \u{XXXX} text.
func neutralJSON(_ []string, a slog.Attr) slog.Attr {
	if s, ok := text(a.Value); ok && strings.ContainsFunc(s, jsonRaw) {
		a.Value = slog.StringValue(escape(s, jsonRaw))
	}
	return a
}

// jsonRaw reports whether the JSON handler writes r unescaped although it
// is not printable.
func jsonRaw(r rune) bool {
	return r >= 0x7f && r != utf8.RuneError && !unicode.IsPrint(r) && r != '\u2028' && r != '\u2029'
}

// neutralText rewrites, for tint, the message and every value that holds a
// backslash or anything not printable. The message, which tint writes
// unquoted, has each such character escaped; a value becomes bytes, which
// tint quotes with strconv.Quote and writes as quoted, on a terminal too.
func neutralText(groups []string, a slog.Attr) slog.Attr {
	s, ok := text(a.Value)
	if !ok || !strings.ContainsFunc(s, unsafeText) && utf8.ValidString(s) {
		return a
	}
	if len(groups) == 0 && a.Key == slog.MessageKey {
		a.Value = slog.StringValue(escape(s, func(r rune) bool { return r != '\\' && unsafeText(r) }))
		return a
	}
	a.Value = slog.AnyValue([]byte(s))
	return a
}

// unsafeText reports whether r must not reach a terminal as it is: the
// backslash (tint's colour turns an escaped ESC back into one), U+FFFD
// (where tint's plain text ends a value) and every character that is not
// printable, the space aside.
func unsafeText(r rune) bool {
	return r == '\\' || r == utf8.RuneError || r != ' ' && !unicode.IsPrint(r)
}

// text is the text a value is written as, for a string or an error.
func text(v slog.Value) (string, bool) {
	switch v.Kind() {
	case slog.KindString:
		return v.String(), true
	case slog.KindAny:
		if err, ok := v.Any().(error); ok && err != nil {
			return err.Error(), true
		}
	}
	return "", false
}

// escape returns s with every character for which bad reports true, and
// every byte that is not UTF-8, written as text naming it (see
// visible.Escape).
func escape(s string, bad func(rune) bool) string {
	return visible.Escape(s, func(r rune) bool { return !bad(r) })
}
