package exposure

import (
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
)

// The application's free text reaches the model and the people who read
// tool definitions in their client (a terminal, an IDE panel): each
// command's help becomes a description, each flag's help a property's. So
// it is cleaned as the model is read (see stabilise), as a command's output
// is (execrunner.SanitizeOutput: no escape sequence, control or invisible
// formatting character passes), and each text is cut to a bound:
// maxShortText for a line of help, maxLongText for a long help or a cheat
// sheet. A fisk application's text is far within them (nats's longest: 181
// and 2,567 bytes); a binary that printed megabytes of help would otherwise
// put them in every tools/list and search result.
const (
	maxShortText = 1 << 10
	maxLongText  = 8 << 10
)

// cleanText is s as the model may read it (see above), cut to max bytes.
func cleanText(s string, max int) string {
	s = execrunner.SanitizeOutput(s)
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
