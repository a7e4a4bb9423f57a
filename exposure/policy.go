package exposure

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/fisk-mcp/fisk-mcp/schema"
)

// Policy is the operator's say over which commands become tools and how they
// are gated and annotated. The zero value exposes every runnable, visible
// command that is not tagged ai:deny, gates only ai:confirm, and advertises
// restricted schemas.
//
// Tags match exactly, with two exceptions. A reserved tag (ai:deny,
// ai:confirm, the behaviour tags) is recognised in any case, with any
// surrounding white space, on the application's side and in these lists
// alike (see canonicalTag); and ConfirmTags match ignoring case and
// surrounding white space (see the field).
//
// Selection (Include, Exclude, IncludeTags, ExcludeTags) chooses among
// application commands; caller-supplied tools are the caller's explicit
// choice and are not filtered. Each App may add its own selection, applied
// in addition to the policy's. Selection runs after ai:deny, so no filter can
// bring a denied command back, and before names are claimed, so a command
// left out never collides.
type Policy struct {
	// Include, when not empty, keeps only tools whose final name (prefix
	// included, after shortening) matches at least one expression.
	Include []*regexp.Regexp
	// Exclude drops tools whose final name matches any expression. Exclusion
	// wins over inclusion.
	Exclude []*regexp.Regexp
	// IncludeTags, when not empty, keeps only tools carrying at least one of
	// these tags. A command matches on its own tags only, not those of the
	// groups above it: a group's tag must not widen what is exposed (see
	// groupTags). The empty tag "" matches a tool with no tags of its own.
	IncludeTags []string
	// ExcludeTags drops tools carrying any of these tags, a command's own or
	// inherited from a group above it; "" matches a tool with no tags of its
	// own. Exclusion wins over inclusion.
	ExcludeTags []string
	// ConfirmTags gates every tool carrying any of these tags (any tag, not
	// only ai: ones). A tag here that matches no tool in the set is a warning:
	// a typo would silently leave tools ungated.
	//
	// Unlike every other tag list, confirm tags match ignoring case and
	// surrounding white space: "impact:rw" gates a command the application
	// tagged "Impact:RW". A gate fails closed: matching too much costs one
	// more question to a person, matching too little runs a command the
	// operator meant to be approved. The selection and mapping lists stay
	// exact, because a looser match there could expose a tool (IncludeTags)
	// or relax its advertised behaviour (ReadOnlyTags) beyond what the
	// operator named.
	ConfirmTags []string
	// ReadOnlyTags, AdditiveTags, DestructiveTags and IdempotentTags map an
	// application's own tags onto ai:read_only, ai:additive, ai:destructive
	// and ai:idempotent (e.g. impact:ro onto ai:read_only).
	ReadOnlyTags, AdditiveTags, DestructiveTags, IdempotentTags []string
	// Schema selects the advertised schema; "" means schema.Restricted.
	Schema schema.Mode
	// SecretFlags names flags (without dashes) whose values are secrets,
	// in addition to those whose names say so (see IsSecretFlag): their
	// values are hidden from every displayed command line.
	SecretFlags []string
}

// validate rejects settings that can only be mistakes: an empty tag in a
// gate or mapping list (it would match nothing) and an unknown schema mode.
func (p Policy) validate() error {
	lists := []struct {
		flag string
		tags []string
	}{
		{"confirm tag", p.ConfirmTags},
		{"read-only tag", p.ReadOnlyTags},
		{"additive tag", p.AdditiveTags},
		{"destructive tag", p.DestructiveTags},
		{"idempotent tag", p.IdempotentTags},
	}
	for _, l := range lists {
		if slices.Contains(l.tags, "") {
			return fmt.Errorf("empty %s: name the tag to map (for example impact:ro)", l.flag)
		}
	}
	for _, re := range slices.Concat(p.Include, p.Exclude) {
		if re == nil {
			return fmt.Errorf("nil name filter expression")
		}
	}
	switch p.Schema {
	case "", schema.Restricted, schema.Full:
		return nil
	default:
		return fmt.Errorf("unknown schema mode %q: use %q or %q", p.Schema, schema.Restricted, schema.Full)
	}
}

// canonical returns p with every spelling of a reserved tag in its tag lists
// replaced by the canonical one. Application tags are read the same way, so
// an exclusion the operator wrote as "ai:Destructive" keeps matching a
// command the application tagged that way. The lists are copies.
func (p Policy) canonical() Policy {
	p.IncludeTags = canonicalTags(p.IncludeTags)
	p.ExcludeTags = canonicalTags(p.ExcludeTags)
	p.ReadOnlyTags = canonicalTags(p.ReadOnlyTags)
	p.AdditiveTags = canonicalTags(p.AdditiveTags)
	p.DestructiveTags = canonicalTags(p.DestructiveTags)
	p.IdempotentTags = canonicalTags(p.IdempotentTags)
	return p
}

func (p Policy) schemaMode() schema.Mode {
	if p.Schema == "" {
		return schema.Restricted
	}
	return p.Schema
}

// selected reports whether a command with the final name and tags passes the
// operator's global selection.
func (p Policy) selected(name string, tags commandTags) bool {
	return selection{p.Include, p.Exclude, p.IncludeTags, p.ExcludeTags}.keeps(name, tags)
}

// selection is one layer of name and tag filters: the policy's, or one
// application's. A command must pass every layer: every non-empty include
// list must be satisfied, and any exclusion drops the tool (see
// selection.keeps for how tags match).
type selection struct {
	include, exclude         []*regexp.Regexp
	includeTags, excludeTags []string
}

func matchesAny(res []*regexp.Regexp, name string) bool {
	for _, re := range res {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// tagsMatch reports whether tags carry one of want; "" in want matches an
// empty tags.
func tagsMatch(want, tags []string) bool {
	if len(tags) == 0 {
		return slices.Contains(want, "")
	}
	for _, t := range tags {
		if slices.Contains(want, t) {
			return true
		}
	}
	return false
}

// knownTag reports whether an ai: tag means something to fisk-mcp or to this
// operator's policy; any other ai: tag earns a warning.
func (p Policy) knownTag(tag string) bool {
	if _, reserved := canonicalTag(tag); reserved {
		return true
	}
	if slices.ContainsFunc(p.ConfirmTags, func(c string) bool { return sameConfirmTag(c, tag) }) {
		return true
	}
	for _, l := range [][]string{p.ReadOnlyTags, p.AdditiveTags, p.DestructiveTags, p.IdempotentTags, p.IncludeTags, p.ExcludeTags} {
		if slices.Contains(l, tag) {
			return true
		}
	}
	return false
}
