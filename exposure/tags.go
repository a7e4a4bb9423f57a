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
	// TagNoDefer is accepted and has no effect: MCP does not defer tools.
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

var reservedTags = map[string]bool{
	TagDeny: true, TagConfirm: true, TagNoDefer: true,
	TagReadOnly: true, TagAdditive: true, TagDestructive: true,
	TagIdempotent: true, TagOpenWorld: true, TagClosedWorld: true,
}

// reservedTagList names the reserved tags in warnings, in a fixed order.
var reservedTagList = strings.Join([]string{
	TagDeny, TagConfirm, TagNoDefer, TagReadOnly, TagAdditive,
	TagDestructive, TagIdempotent, TagOpenWorld, TagClosedWorld,
}, ", ")

// behaviourClaims is what a tool's tags say, collected before any conflict
// is resolved, so the order of the tags never matters.
type behaviourClaims struct {
	readOnly, additive, destructive, idempotent, openWorld, closedWorld bool
}

func (p Policy) claims(tags []string) behaviourClaims {
	var c behaviourClaims
	for _, t := range tags {
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

// BehaviorForTags resolves a tool's tags, under the policy's mappings, into
// the behaviour advertised to clients. The result does not depend on the
// order of tags.
func (p Policy) BehaviorForTags(tags []string) Behavior {
	return p.claims(tags).resolve()
}

// ConfirmTrigger returns the tag that gates a tool carrying tags, or "" when
// none does. ai:confirm is preferred; otherwise the first of the tool's
// tags, in the tool's order, that appears in ConfirmTags. For a command the
// tags are its effective ones (its groups' tags, outermost first, then its
// own; see groupTags), so an operator's gate holds whether the application
// tagged the command or a group above it. The trigger is what the person is
// told, so it must be deterministic.
func (p Policy) ConfirmTrigger(tags []string) string {
	if slices.Contains(tags, TagConfirm) {
		return TagConfirm
	}
	for _, t := range tags {
		if slices.Contains(p.ConfirmTags, t) {
			return t
		}
	}
	return ""
}
