package exposure

import (
	"slices"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// groupTags indexes the tags of an application's visible grouping nodes.
//
// A leaf's effective tags are the tags of every group above it, outermost
// first, followed by its own, each kept at its first occurrence (see
// effectiveTags). Everything that reads a command's tags reads these:
// ai:deny, ai:confirm, the operator's confirm tags, behaviour tags and
// their mappings, selection by tag, the "Tags:" line of the model
// description and Sourced.Tags.
//
// Why: a group is never a tool, so a tag on one can only be about the
// commands beneath it, and real applications put tags there (natscli tags
// the groups "bench js" and "bench kv" impact:rw and leaves their commands
// untagged). An operator who gates or excludes impact:rw must not find the
// gate bypassed because the application's author tagged a group rather
// than each command; reading group tags as inherited fails closed.
// Behaviour conflicts across levels resolve as they do within one list
// (a group's ai:read_only with a command's ai:destructive is not
// read-only), because resolution looks at all the tags at once.
type groupTags struct {
	// inherited maps a group's key to the tags the commands beneath it
	// inherit: its ancestors' and its own, outermost first, deduplicated,
	// reserved tags canonical.
	inherited map[string][]string
	// own maps a group's key to the tags declared on the group itself, as
	// written, for warnings that name where and how a tag was written.
	own map[string][]string
}

// groupKey identifies the group at path. NUL cannot occur in a command
// name given on a command line, so keys of different paths never meet.
func groupKey(path []string) string { return strings.Join(path, "\x00") }

// indexGroupTags walks the visible groups of m. Hidden subtrees are skipped,
// as introspect.Walk skips them; a node is a group exactly when Walk treats
// it as one (it has subcommands).
func indexGroupTags(m *fisk.ApplicationModel) groupTags {
	g := groupTags{inherited: map[string][]string{}, own: map[string][]string{}}
	var walk func(cmds []*fisk.CmdModel, parent []string, above []string)
	walk = func(cmds []*fisk.CmdModel, parent []string, above []string) {
		for _, c := range cmds {
			if c == nil || c.Hidden || c.CmdGroupModel == nil || len(c.Commands) == 0 {
				continue
			}
			path := append(slices.Clone(parent), c.Name)
			key := groupKey(path)
			tags := mergeTags(above, canonicalTags(c.Tags))
			if len(tags) > 0 {
				g.inherited[key] = tags
			}
			if len(c.Tags) > 0 {
				g.own[key] = slices.Clone(c.Tags)
			}
			walk(c.Commands, path, tags)
		}
	}
	if m != nil && m.CmdGroupModel != nil {
		walk(m.Commands, nil, nil)
	}
	return g
}

// effectiveTags returns the tags leaf carries: its groups' tags, outermost
// first, then its own, each once at its first occurrence, reserved tags in
// their canonical spelling (see canonicalTag). The result is a fresh slice.
func (g groupTags) effectiveTags(leaf introspect.Leaf) []string {
	return mergeTags(g.inherited[groupKey(leaf.Path[:len(leaf.Path)-1])], canonicalTags(leaf.Command.Tags))
}

// ancestors calls f with the path of every group above leaf that declares
// tags of its own, outermost first, and those tags.
func (g groupTags) ancestors(leaf introspect.Leaf, f func(path []string, own []string)) {
	if len(g.own) == 0 {
		return
	}
	for i := 1; i < len(leaf.Path); i++ {
		if own, ok := g.own[groupKey(leaf.Path[:i])]; ok {
			f(leaf.Path[:i], own)
		}
	}
}

// mergeTags returns first followed by then, keeping the first occurrence of
// each tag; nil when both are empty.
func mergeTags(first, then []string) []string {
	if len(first)+len(then) == 0 {
		return nil
	}
	out := make([]string, 0, len(first)+len(then))
	for _, t := range slices.Concat(first, then) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
