package browser

import (
	"github.com/fisk-mcp/fisk-mcp/internal/visible"
)

// maxShownField bounds, in runes, each field a page shows but the command
// line: the server's and tool's names, the trigger and who asked. The
// command line is shown whole, since it is what the person approves.
const maxShownField = 256

// shownRequest is r as a page shows it: every string neutralised, every
// field but the command line bounded. A Request from the gate is escaped
// already and passes unchanged; one from anywhere else (a store's entry
// written by another program) cannot reorder or hide text on the page.
func shownRequest(r Request) Request {
	r.Server = visible.Cut(neutral(r.Server), maxShownField)
	r.Tool = visible.Cut(neutral(r.Tool), maxShownField)
	r.CommandLine = neutral(r.CommandLine)
	r.Trigger = visible.Cut(neutral(r.Trigger), maxShownField)
	r.Client = visible.Cut(neutral(r.Client), maxShownField)
	return r
}

// neutral writes out, as \xNN or \u{...}, every byte that is not valid
// UTF-8 and every rune that is not graphic (controls such as ESC,
// bidirectional overrides, zero-width and private-use characters),
// keeping spaces, tabs and line breaks, which the page lays out as such.
// The gate's escaping yields only runes it keeps, so it never doubles.
func neutral(s string) string { return visible.Escape(s, kept) }

func kept(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || visible.Graphic(r)
}
