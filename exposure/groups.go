package exposure

import (
	"slices"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// groupTags indexes the tags of an application's visible grouping nodes.
//
// A command inherits the tags of every group above it, outermost first (see
// commandTags). Inherited tags can only make the commands beneath a group
// stricter, never more permissive:
//
//   - ai:deny on a group removes every command beneath it.
//   - ai:confirm and the operator's confirm tags on a group gate every
//     command beneath it. The trigger is ai:confirm, own or inherited;
//     otherwise the first operator confirm tag among the command's own tags,
//     in their order, then among the inherited ones, outermost first.
//   - Exclusion by tag (Policy.ExcludeTags, App.ExcludeTags) matches own and
//     inherited tags. Inclusion by tag (IncludeTags) matches own tags only,
//     and the empty tag "" means "no tags of its own" in both lists.
//   - Behaviour: inherited tags that claim more danger count (ai:additive,
//     ai:destructive, ai:open_world and the operator's mappings onto
//     additive and destructive); inherited tags that claim less are ignored
//     (ai:read_only, ai:idempotent, ai:closed_world and the mappings onto
//     read-only and idempotent). The result is never more permissive, in any
//     field, than the command's own tags alone (see commandBehavior).
//
// The "Tags:" line of the model description and Sourced.Tags show the
// effective tags, inherited then own (see commandTags.effective): what the
// application says about a command is worth showing whichever way it acts.
//
// Why inherit at all: a group is never a tool, so a tag on one can only be
// about the commands beneath it, and real applications put tags there
// (natscli tags the groups "bench js" and "bench kv" impact:rw and leaves
// their commands untagged). An operator who gates or excludes impact:rw
// must not find the gate bypassed because the author tagged a group rather
// than each command.
//
// Why only stricter: a group's tag is a claim about many commands at once,
// and applications refine it per command in their own semantics: natscli
// tags the group "server request" impact:ro and its command "server request
// kick" impact:rw. Read permissively, --read-only-tag impact:ro would
// advertise kick as read-only, and clients may run read-only tools without
// asking. So a group's claim may remove a command, gate it, exclude it or
// make its advertised behaviour more cautious, but never expose it (by
// inclusion), nor advertise it as read-only, idempotent, closed-world or
// non-destructive when the command does not say so itself. Exposure decided
// by a misread group tag fails closed; one decided by a permissive reading
// fails open.
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

// tagsOf returns leaf's tags, split into its own and those it inherits from
// its groups (see groupTags).
func (g groupTags) tagsOf(leaf introspect.Leaf) commandTags {
	return commandTags{
		own:       mergeTags(canonicalTags(leaf.Command.Tags), nil),
		inherited: slices.Clone(g.inherited[groupKey(leaf.Path[:len(leaf.Path)-1])]),
	}
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
