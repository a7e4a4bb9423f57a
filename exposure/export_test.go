package exposure

import "time"

// CommandBehavior exposes the resolution of a command's own and inherited
// tags to the external tests, which try every combination of them without
// building a tool set for each.
func CommandBehavior(p Policy, own, inherited []string) Behavior {
	return p.commandBehavior(commandTags{own: mergeTags(canonicalTags(own), nil), inherited: mergeTags(canonicalTags(inherited), nil)})
}

// StabiliseText exposes the normalisation of volatile text (see stabilise)
// to the table test of its rule.
func StabiliseText(s string, now time.Time) string { return normaliser{now: now}.text(s) }

// CleanText exposes the cleaning of an application's text (see cleanText).
func CleanText(s string, max int) string { return cleanText(s, max) }

// MaxShortText and MaxLongText are cleanText's bounds.
const (
	MaxShortText = maxShortText
	MaxLongText  = maxLongText
)
