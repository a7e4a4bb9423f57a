package catalog

import (
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// FromToolSet returns one entry per tool of s, in the set's order (by name).
// gated reports whether a tool needs a person's approval; it is the caller's
// to supply because the index does not consult the gate, and a nil gated
// leaves every entry ungated. Params are the top-level property names of
// the advertised input schema, sorted.
func FromToolSet(s *exposure.ToolSet, gated func(exposure.Tool) bool) []Entry {
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
		e.Detail = detail(t.ModelDescription(), e.Description, e.Tags)
		if props, ok := t.InputSchema()["properties"].(map[string]any); ok {
			for name := range props {
				e.Params = append(e.Params, name)
			}
			slices.Sort(e.Params)
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
