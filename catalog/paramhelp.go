package catalog

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/schema"
)

// paramHelp is the help of each top-level property of an input schema
// that has any, in the order of names: its own "description" (an array's,
// not its items'), without the notes fisk-mcp's schema appends to it (see
// fiskMCPNote). A help that two parameters share is kept once.
func paramHelp(props map[string]any, names []string) []string {
	var out []string
	for _, name := range names {
		prop, _ := props[name].(map[string]any)
		d, _ := prop["description"].(string)
		if d = withoutNotes(d); d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// fiskMCPNote matches the text of each note the schema package appends to
// a property's description, in parentheses after the help or alone when
// there is none: how a value is passed (a count, keys of a map, the only
// accepted true), its range, a renamed argument, a global's default. They
// say how to call the tool, not what it is for, and in the same words on
// every tool, so they are left out of the help the index reads. The forms
// are those of schema/params.go, command.go and globals.go; a change there
// must be made here too.
var fiskMCPNote = regexp.MustCompile(`^(?:` + strings.Join([]string{
	`(?:at least|at most|from) ` + bound + `(?: to ` + bound + `)?`,
	regexp.QuoteMeta(`keys cannot contain "=" or ":"`),
	regexp.QuoteMeta(fmt.Sprintf("a count from 0 to %d: the flag is given that many times", schema.MaxCounter)),
	`already on by default and (?:has no negation|--no-\S+ is another flag): only true is accepted; omit it to keep it on`,
	`the positional argument "[^"]*", renamed because a flag of the command has its name`,
	`default: [^()]*`,
}, "|") + `)$`)

// bound is a range bound as the schema writes it: an integer, or a
// float in Go's shortest form.
const bound = `-?\d+(?:\.\d+)?(?:e[+-]\d+)?`

// withoutNotes strips the schema's notes from the end of a description,
// innermost last, and trims it.
func withoutNotes(d string) string {
	d = strings.TrimSpace(d)
	for {
		if fiskMCPNote.MatchString(d) {
			return ""
		}
		i := strings.LastIndex(d, " (")
		if i < 0 || !strings.HasSuffix(d, ")") || !fiskMCPNote.MatchString(d[i+2:len(d)-1]) {
			return d
		}
		d = strings.TrimSpace(d[:i])
	}
}
