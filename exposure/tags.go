package exposure

import (
	"slices"
	"strings"
)

// Reserved tags. The first three change what fisk-mcp does; the behaviour
// tags are advice mapped onto MCP tool annotations.
const (
	// TagDeny removes a command entirely: it is never listed and never
	// callable, not even by calling its name directly.
	TagDeny = "ai:deny"
	// TagConfirm gates a command behind a person's approval.
	TagConfirm = "ai:confirm"
	// TagNoDefer keeps a command listed in full when a serving surface
	// defers the other definitions behind a tool search, and asks clients
	// that defer tools by themselves to load it up front (see NoDefer).
	TagNoDefer = "ai:no_defer"

	TagReadOnly    = "ai:read_only"
	TagAdditive    = "ai:additive"
	TagDestructive = "ai:destructive"
	TagIdempotent  = "ai:idempotent"
	TagOpenWorld   = "ai:open_world"
	TagClosedWorld = "ai:closed_world"
)

// aiTagPrefix marks the tag namespace fisk-mcp reads. Other ai: tags are
// legitimate private tags, reported only as a warning in case of a typo.
const aiTagPrefix = "ai:"

// reservedTagOrder lists the reserved tags in a fixed order, for lookups
// and for warnings.
var reservedTagOrder = []string{
	TagDeny, TagConfirm, TagNoDefer, TagReadOnly, TagAdditive,
	TagDestructive, TagIdempotent, TagOpenWorld, TagClosedWorld,
}

// reservedTagList names the reserved tags in warnings.
var reservedTagList = strings.Join(reservedTagOrder, ", ")

// canonicalTag returns the reserved tag that tag spells, ignoring case and
// surrounding white space, and true; any other tag comes back as written,
// with false.
//
// Why: an application author who writes "AI:deny" or "ai:Confirm " means
// the reserved tag, and reading it exactly would fail open: the command
// would be exposed, or run without approval, with nothing to say so. So a
// reserved tag is recognised in any spelling and read as the canonical one
// everywhere (deny, gates, behaviour, selection, the Tags line), and Build
// warns about the spelling so the author can fix it. Tags outside the
// reserved set keep their exact spelling: they are the application's own
// vocabulary.
func canonicalTag(tag string) (string, bool) {
	trimmed := strings.TrimSpace(tag)
	if !isAITag(trimmed) {
		return tag, false
	}
	for _, r := range reservedTagOrder {
		if strings.EqualFold(trimmed, r) {
			return r, true
		}
	}
	return tag, false
}

// canonicalTags returns tags with every spelling of a reserved tag replaced
// by the canonical one (see canonicalTag). The result is a fresh slice, nil
// when tags is empty; duplicates are the caller's to remove.
func canonicalTags(tags []string) []string {
	if len(tags) == 0 {
		return nil
	}
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i], _ = canonicalTag(t)
	}
	return out
}

// isAITag reports whether tag is in the ai: namespace, in any case and
// whatever white space surrounds it, so a misspelt "AI:sparkle" is warned
// about like "ai:sparkle".
func isAITag(tag string) bool {
	t := strings.TrimSpace(tag)
	return len(t) >= len(aiTagPrefix) && strings.EqualFold(t[:len(aiTagPrefix)], aiTagPrefix)
}

// miscased reports whether tag spells a reserved tag other than exactly,
// and which one.
func miscased(tag string) (canonical string, ok bool) {
	canonical, reserved := canonicalTag(tag)
	return canonical, reserved && canonical != tag
}

// sameConfirmTag reports whether an operator's confirm tag matches a tool's
// tag: ignoring case and surrounding white space (see Policy.ConfirmTags).
func sameConfirmTag(operator, tool string) bool {
	return strings.EqualFold(strings.TrimSpace(operator), strings.TrimSpace(tool))
}

// behaviourClaims is what a tool's tags say, collected before any conflict
// is resolved, so the order of the tags never matters.
type behaviourClaims struct {
	readOnly, additive, destructive, idempotent, openWorld, closedWorld bool
}

// claims reads tags, spelt any way (see canonicalTag), under the policy's
// mappings.
func (p Policy) claims(tags []string) behaviourClaims {
	var c behaviourClaims
	for _, t := range canonicalTags(tags) {
		c.readOnly = c.readOnly || t == TagReadOnly || slices.Contains(p.ReadOnlyTags, t)
		c.additive = c.additive || t == TagAdditive || slices.Contains(p.AdditiveTags, t)
		c.destructive = c.destructive || t == TagDestructive || slices.Contains(p.DestructiveTags, t)
		c.idempotent = c.idempotent || t == TagIdempotent || slices.Contains(p.IdempotentTags, t)
		c.openWorld = c.openWorld || t == TagOpenWorld
		c.closedWorld = c.closedWorld || t == TagClosedWorld
	}
	return c
}

// resolve turns claims into a Behavior. It starts from ConservativeBehavior
// and only explicit tags relax it; when tags disagree the conservative
// reading wins, and a conflict never fails a load (a binary the operator
// cannot edit must not stop everything):
//
//   - read-only with any write tag (additive or destructive) is not read-only;
//   - destructive beats additive; additive alone is not destructive;
//   - a read-only tool writes nothing, so it is neither destructive nor
//     capable of a different effect when repeated (idempotent);
//   - closed world needs ai:closed_world without ai:open_world.
func (c behaviourClaims) resolve() Behavior {
	b := ConservativeBehavior
	b.ReadOnly = c.readOnly && !c.additive && !c.destructive
	switch {
	case c.destructive:
		b.Destructive = true
	case c.additive, b.ReadOnly:
		b.Destructive = false
	}
	b.Idempotent = c.idempotent || b.ReadOnly
	b.OpenWorld = c.openWorld || !c.closedWorld
	return b
}

// tightenedBy returns c with the claims of inherited that can only make a
// tool look more dangerous: that it writes (additive, destructive) and that
// it reaches an open world. The claims that relax (read-only, idempotent,
// closed world) are dropped: a group's tags never make a command more
// permissive (see groupTags).
func (c behaviourClaims) tightenedBy(inherited behaviourClaims) behaviourClaims {
	c.additive = c.additive || inherited.additive
	c.destructive = c.destructive || inherited.destructive
	c.openWorld = c.openWorld || inherited.openWorld
	return c
}

// stricter returns, field by field, the more cautious of a and b: read-only
// and idempotent only when both are, destructive and open world when either
// is.
func stricter(a, b Behavior) Behavior {
	return Behavior{
		ReadOnly:    a.ReadOnly && b.ReadOnly,
		Destructive: a.Destructive || b.Destructive,
		Idempotent:  a.Idempotent && b.Idempotent,
		OpenWorld:   a.OpenWorld || b.OpenWorld,
	}
}

// BehaviorForTags resolves a tool's tags, under the policy's mappings, into
// the behaviour advertised to clients. The result does not depend on the
// order of tags.
func (p Policy) BehaviorForTags(tags []string) Behavior {
	return p.claims(tags).resolve()
}

// ConfirmTrigger returns the tag that gates a tool carrying tags, or "" when
// none does. ai:confirm, in any spelling, is preferred; otherwise the first
// of the tool's tags, in the tool's order, that matches one of ConfirmTags
// (ignoring case and surrounding white space; see Policy.ConfirmTags). The
// trigger is the tool's own spelling of the tag, canonical for a reserved
// one. For a command the tags are its own followed by those it inherits
// from its groups, outermost first (see groupTags), so an operator's gate
// holds whether the application tagged the command or a group above it,
// and the command's own tag is named first. The trigger is what the person
// is told, so it must be deterministic.
func (p Policy) ConfirmTrigger(tags []string) string {
	tags = canonicalTags(tags)
	if slices.Contains(tags, TagConfirm) {
		return TagConfirm
	}
	for _, t := range tags {
		if slices.ContainsFunc(p.ConfirmTags, func(c string) bool { return sameConfirmTag(c, t) }) {
			return t
		}
	}
	return ""
}
