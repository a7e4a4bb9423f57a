package exposure

import "slices"

// commandTags are a command's tags split by where the application wrote
// them, each list in canonical spelling (see canonicalTag), each tag once.
// Every reader of a command's tags goes through one of the methods below,
// which apply the rule of groupTags: inherited tags only make a command
// stricter.
type commandTags struct {
	own       []string // declared on the command itself
	inherited []string // declared on the groups above it, outermost first
}

// effective returns the tags shown for the command and read where a tag can
// only restrict (ai:deny): inherited first, outermost first, then own, each
// once at its first occurrence. The result is a fresh slice.
func (t commandTags) effective() []string { return mergeTags(t.inherited, t.own) }

// denied reports whether the command or a group above it is tagged ai:deny.
func (t commandTags) denied() bool {
	return slices.Contains(t.own, TagDeny) || slices.Contains(t.inherited, TagDeny)
}

// trigger returns the tag that gates the command under p, or "": ai:confirm
// from anywhere, else the first operator confirm tag among the command's
// own tags, then among the inherited ones. A command's own tags name it
// more precisely than its group's, so they are what the person is told.
func (p Policy) trigger(t commandTags) string {
	return p.ConfirmTrigger(mergeTags(t.own, t.inherited))
}

// commandBehavior resolves the command's behaviour under p. Its own tags
// resolve as BehaviorForTags resolves any list; the inherited tags add only
// the claims that make a command more dangerous (see tightenedBy), and the
// result is then held, field by field, to be no more permissive than the
// own tags alone (see stricter). The second step matters for ai:additive:
// on a group it says the commands beneath write, which rightly costs a
// command its own ai:read_only, but it does not say they write harmlessly,
// so it must not lift the destructive default of a command that said
// nothing itself.
func (p Policy) commandBehavior(t commandTags) Behavior {
	own := p.claims(t.own)
	return stricter(own.resolve(), own.tightenedBy(p.claims(t.inherited)).resolve())
}

// keeps reports whether the command, under its final name, passes s.
// Exclusion matches own and inherited tags: excluding more is the strict
// choice. Inclusion matches own tags only: a group's tag would widen what
// an inclusion lets through on the strength of a claim about many
// commands. The empty tag "" means no tags of its own, in both lists, so a
// command under a tagged group does not escape an exclusion of untagged
// commands.
func (s selection) keeps(name string, t commandTags) bool {
	if len(s.include) > 0 && !matchesAny(s.include, name) {
		return false
	}
	if matchesAny(s.exclude, name) {
		return false
	}
	if len(s.includeTags) > 0 && !tagsMatch(s.includeTags, t.own) {
		return false
	}
	return !tagsMatch(s.excludeTags, t.own) && !slices.ContainsFunc(t.inherited, func(tag string) bool {
		return slices.Contains(s.excludeTags, tag)
	})
}
