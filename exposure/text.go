package exposure

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The application's free text reaches the model and the people who read
// tool definitions in their client (a terminal, an IDE panel): each
// command's help becomes a description, each flag's help a property's.
// So it is cleaned as the model is read (see stabilise): terminal escape
// sequences are dropped whole, other control characters but newline and
// tab are dropped, as are format characters (a bidirectional override
// could make a description read as something else), bytes that are not
// UTF-8 become U+FFFD, and each text is cut to a bound: maxShortText for
// a line of help, maxLongText for a long help or a cheat sheet. A fisk
// application's text is far within them (nats's longest: 181 and 2,567
// bytes); a binary that prints megabytes of help would otherwise put them
// in every tools/list and search result.
const (
	maxShortText = 1 << 10
	maxLongText  = 8 << 10
)

// escapeSequence matches an ANSI escape sequence: a control sequence (CSI,
// "ESC [" parameters and a final byte), an operating-system command (OSC,
// "ESC ]" up to BEL or "ESC \"), or a two-byte escape.
var escapeSequence = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(\x07|\x1b\\\\)?|\x1b[@-Z\\\\-_]")

// cleanText is s as the model may read it (see above), cut to max bytes.
func cleanText(s string, max int) string {
	if len(s) <= max && plain(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = escapeSequence.ReplaceAllString(s, "")
	}
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
	if len(s) <= max {
		return s
	}
	const more = "…"
	cut := max - len(more)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + more
}

// plain reports whether s is printable ASCII, newlines and tabs only: the
// text of nearly every application, which cleanText leaves as it is.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\n' && c != '\t') || c > '~' {
			return false
		}
	}
	return true
}
