package catalog

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// FromToolSet returns one entry per tool of s, in the set's order (by name).
// Title, tags, aliases and examples come from the capabilities a tool has
// ([exposure.Sourced], [exposure.Aliased], [exposure.Exemplified]).
// gated reports whether a tool needs a person's approval; it is the caller's
// to supply because the index does not consult the gate, and a nil gated
// leaves every entry ungated. Params are the top-level property names of
// the advertised input schema, sorted, and ParamHelp their descriptions
// without the schema's notes (see paramHelp). Asked are the requests known
// for an application command (see Asked) and those requests adds for it;
// nil adds none.
func FromToolSet(s *exposure.ToolSet, gated func(exposure.Tool) bool, requests Requests) []Entry {
	tools := s.Tools()
	entries := make([]Entry, 0, len(tools))
	for _, t := range tools {
		e := Entry{
			Name:        t.Name(),
			Description: t.Description(),
			ReadOnly:    exposure.BehaviorOf(t).ReadOnly,
		}
		if src, ok := t.(exposure.Sourced); ok {
			e.Title = src.Title()
			e.Tags = src.Tags()
		}
		if app, ok := t.(exposure.Applied); ok {
			e.Asked = requests.of(app.Application(), e.Title)
		}
		e.Detail = detail(t.ModelDescription(), e.Description, e.Tags)
		e.Aliases = aliases(t, e.Title)
		e.Examples = examples(t)
		if props, ok := t.InputSchema()["properties"].(map[string]any); ok {
			for name := range props {
				e.Params = append(e.Params, name)
			}
			slices.Sort(e.Params)
			e.ParamHelp = paramHelp(props, e.Params)
		}
		if gated != nil {
			e.Gated = gated(t)
		}
		entries = append(entries, e)
	}
	return entries
}

// detail is the part of a model description that neither the summary nor
// the trailing "Tags: ..." line already holds, so that no text is counted
// twice. A description of another shape is kept whole.
func detail(model, summary string, tags []string) string {
	rest, ok := strings.CutPrefix(model, summary)
	if !ok {
		return model
	}
	if len(tags) > 0 {
		rest = strings.TrimSuffix(rest, "Tags: "+strings.Join(tags, ", "))
	}
	return strings.TrimSpace(rest)
}

// aliases maps each word of title to the aliases t gives for it (see
// exposure.Aliased, whose levels are the title's words), leaving out the
// one-letter ones the index ignores (see minAlias).
func aliases(t exposure.Tool, title string) map[string][]string {
	a, ok := t.(exposure.Aliased)
	if !ok {
		return nil
	}
	words := strings.Fields(title)
	var out map[string][]string
	for i, level := range a.Aliases() {
		if i >= len(words) {
			continue
		}
		for _, alias := range level {
			if utf8.RuneCountInString(alias) >= minAlias && !slices.Contains(out[words[i]], alias) {
				if out == nil {
					out = map[string][]string{}
				}
				out[words[i]] = append(out[words[i]], alias)
			}
		}
	}
	return out
}

// examples are the distinct lines of the notes of t's examples: a note
// that heads a paragraph is above each of its command lines, and counts
// once.
func examples(t exposure.Tool) []string {
	e, ok := t.(exposure.Exemplified)
	if !ok {
		return nil
	}
	var out []string
	for _, ex := range e.Examples() {
		for line := range strings.Lines(ex.Note) {
			if line = strings.TrimSpace(line); line != "" && !slices.Contains(out, line) {
				out = append(out, line)
			}
		}
	}
	return out
}
