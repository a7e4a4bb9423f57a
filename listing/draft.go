package listing

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// DraftApp is an app of a drafted configuration: its path as the file
// should hold it, and its prefix.
type DraftApp struct {
	Path, Prefix string
}

// draftLeftShown bounds the ungated tools a draft names one by one.
const draftLeftShown = 40

// WriteDraft writes a configuration file for fisk-mcp serve --config
// (plan/config.schema.json) with apps and the mappings s suggests, each
// line explained in a comment, and what is left ungated: a draft for a
// person to review before serving, never applied unseen.
func WriteDraft(w io.Writer, apps []DraftApp, s Safety) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	p("# fisk-mcp configuration drafted by fisk-mcp init from the apps' tags.")
	p("# Review every line, then check what it serves and serve it:")
	p("#   fisk-mcp tools --config FILE")
	p("#   fisk-mcp serve --config FILE")
	p("# Keys are serve's flags with underscores (fisk-mcp serve --help).")
	p("")
	p("apps:")
	for _, a := range apps {
		p("  - path: %s", strconv.Quote(a.Path))
		if a.Prefix != "" {
			p("    prefix: %s", strconv.Quote(a.Prefix))
		}
	}
	if len(s.ReadOnly) > 0 {
		p("")
		p("# Advertise the commands tagged %s as read-only,", joinAnd(tagWords(s.ReadOnly)))
		p("# as if tagged ai:read_only: %d more %s. Clients may run read-only tools", s.MarkReadOnly, plural(s.MarkReadOnly, "tool", "tools"))
		p("# without asking, so check that these commands only read.")
		writeTags(p, "read_only_tag", s.ReadOnly)
	}
	if len(s.Confirm) > 0 {
		p("")
		p("# Gate the commands tagged %s: %d more %s only", joinAnd(tagWords(s.Confirm)), s.Gate, plural(s.Gate, "tool runs", "tools run"))
		p("# after a person approves each call, through the client (approval: browser")
		p("# asks in a browser instead, for clients that cannot ask).")
		writeTags(p, "confirm_tag", s.Confirm)
	}
	if len(s.Other) > 0 {
		p("")
		p("# The app also tags %s;", joinAnd(tagWords(s.Other)))
		p("# to serve fewer tools, select by them, for example:")
		p("# exclude_tag:")
		p("#   - %s", strconv.Quote(s.Other[0].Tag))
	}
	p("")
	switch {
	case len(s.Left) == 0:
		p("# Left ungated: none. Every served tool is read-only, additive or gated.")
	default:
		p("# Left ungated: %d %s may change or delete things and run without a", len(s.Left), plural(len(s.Left), "tool", "tools"))
		p("# person's approval. Tag them ai:confirm or ai:read_only in the app, gate")
		p("# them by another tag with confirm_tag, or leave them out with exclude:")
		for _, name := range s.Left[:min(len(s.Left), draftLeftShown)] {
			p("#   %s", name)
		}
		if n := len(s.Left) - draftLeftShown; n > 0 {
			p("#   and %d more (fisk-mcp tools --config FILE lists them)", n)
		}
	}
	return b.Flush()
}

func tagWords(cs []TagCount) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s (%d %s)", c.Tag, c.Tools, plural(c.Tools, "tool", "tools")))
	}
	return out
}

func writeTags(p func(string, ...any), key string, cs []TagCount) {
	p("%s:", key)
	for _, c := range cs {
		p("  - %s", strconv.Quote(c.Tag))
	}
}
