package listing

import (
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// Safety is what a set offers a model without a person's approval, and
// what the applications' own tags suggest doing about it. It describes;
// the operator decides (with the flags it suggests, or fisk-mcp init).
type Safety struct {
	// Unguarded names the served tools that may change or delete things
	// and run without approval: not read-only, destructive (an untagged
	// command is, by exposure's conservative default) and not gated.
	Unguarded []string `json:"unguarded"`
	// ReadOnly and Confirm are the tags worth mapping with --read-only-tag
	// and --confirm-tag, with the tools each would change.
	ReadOnly []TagCount `json:"read_only_tags,omitempty"`
	Confirm  []TagCount `json:"confirm_tags,omitempty"`
	// MarkReadOnly and Gate count the tools those mappings would mark
	// read-only and gate that are not already.
	MarkReadOnly int `json:"mark_read_only,omitempty"`
	Gate         int `json:"gate,omitempty"`
	// Left names the unguarded tools neither mapping would reach.
	Left []string `json:"left,omitempty"`
	// Other are the tags of the same KEY:VALUE shape that say nothing of
	// impact (scope:system), which --include-tag and --exclude-tag select by.
	Other []TagCount `json:"other_tags,omitempty"`
}

// TagCount is a tag and the number of served tools carrying it.
type TagCount struct {
	Tag   string `json:"tag"`
	Tools int    `json:"tools"`
}

// The heuristics that read an application's tags as a convention, kept
// small on purpose, since a wrong guess is shown to a person and never
// applied without one:
//
//   - conventionTag: only a tag of the form KEY:VALUE, both plain words
//     (letters, digits, '.', '_', '-'), and not an ai: tag, is considered;
//   - readValues: a VALUE that says the command only reads (impact:ro)
//     suggests --read-only-tag;
//   - writeValues: a VALUE that says it writes (impact:rw) suggests
//     --confirm-tag: a gate fails closed, which is why writes are gated
//     rather than only annotated destructive;
//   - any other VALUE of such a tag (scope:system) is reported in Other;
//   - a tag is suggested only when the mapping would change a tool: one
//     the policy maps already, or whose tools are all read-only or gated
//     already, is not.
var (
	conventionTag = regexp.MustCompile(`^[A-Za-z0-9._-]+:[A-Za-z0-9._-]+$`)
	readValues    = []string{"ro", "read", "readonly", "read-only", "read_only", "safe"}
	writeValues   = []string{"rw", "write", "readwrite", "read-write", "destructive", "dangerous", "unsafe", "mutating"}
)

// Assess reads the served tools of set, built under p: which run
// unguarded, and what their tags suggest that p does not map already.
func Assess(set *exposure.ToolSet, p exposure.Policy) Safety {
	s := Safety{Unguarded: []string{}}
	type tally struct{ tools, changes int }
	reads, writes, others := map[string]*tally{}, map[string]*tally{}, map[string]*tally{}
	type served struct {
		name            string
		tags            []string
		unguarded, read bool
		gated           bool
	}
	var all []served
	for _, t := range set.Tools() {
		if !t.MCPExposable() {
			continue
		}
		b := exposure.BehaviorOf(t)
		_, gated := Gate(t)
		sv := served{name: t.Name(), read: b.ReadOnly, gated: gated}
		sv.unguarded = !b.ReadOnly && b.Destructive && !gated
		if src, ok := t.(exposure.Sourced); ok {
			sv.tags = src.Tags()
		}
		if sv.unguarded {
			s.Unguarded = append(s.Unguarded, sv.name)
		}
		all = append(all, sv)
		for _, tag := range sv.tags {
			key, value, _ := strings.Cut(tag, ":")
			if !conventionTag.MatchString(tag) || strings.EqualFold(key, "ai") {
				continue
			}
			m, changes := others, false
			switch v := strings.ToLower(value); {
			case slices.Contains(readValues, v):
				m, changes = reads, !b.ReadOnly && !slices.Contains(p.ReadOnlyTags, tag)
			case slices.Contains(writeValues, v):
				m, changes = writes, !gated && !slices.ContainsFunc(p.ConfirmTags, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), tag) })
			}
			if m[tag] == nil {
				m[tag] = &tally{}
			}
			m[tag].tools++
			if changes {
				m[tag].changes++
			}
		}
	}
	pick := func(m map[string]*tally, changing bool) []TagCount {
		var out []TagCount
		for tag, n := range m {
			if !changing || n.changes > 0 {
				out = append(out, TagCount{tag, n.tools})
			}
		}
		slices.SortFunc(out, func(a, b TagCount) int { return strings.Compare(a.Tag, b.Tag) })
		return out
	}
	s.ReadOnly, s.Confirm, s.Other = pick(reads, true), pick(writes, true), pick(others, false)
	carries := func(tags []string, counts []TagCount) bool {
		return slices.ContainsFunc(counts, func(c TagCount) bool { return slices.Contains(tags, c.Tag) })
	}
	for _, sv := range all {
		marked := !sv.read && carries(sv.tags, s.ReadOnly)
		gated := !sv.gated && carries(sv.tags, s.Confirm)
		if marked {
			s.MarkReadOnly++
		}
		if gated {
			s.Gate++
		}
		if sv.unguarded && !marked && !gated {
			s.Left = append(s.Left, sv.name)
		}
	}
	return s
}

// Flags are the command-line flags of the suggestion, in order.
func (s Safety) Flags() []string {
	var out []string
	for _, c := range s.ReadOnly {
		out = append(out, "--read-only-tag", c.Tag)
	}
	for _, c := range s.Confirm {
		out = append(out, "--confirm-tag", c.Tag)
	}
	return out
}

// Warning says how many served tools run unguarded; "" when none do.
func (s Safety) Warning() string {
	n := len(s.Unguarded)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d served %s may change or delete things and run without a person's approval", n, plural(n, "tool", "tools"))
}

// Hint is the one line that says what to do about the unguarded tools:
// the mapping the tags suggest, or how to gate them otherwise; "" when no
// tool is unguarded and no tag is worth mapping.
func (s Safety) Hint() string {
	if len(s.ReadOnly)+len(s.Confirm) > 0 {
		var tagged, effects []string
		for _, c := range slices.Concat(s.ReadOnly, s.Confirm) {
			tagged = append(tagged, fmt.Sprintf("%s (%d)", c.Tag, c.Tools))
		}
		if len(s.ReadOnly) > 0 {
			effects = append(effects, fmt.Sprintf("mark %d read-only", s.MarkReadOnly))
		}
		if len(s.Confirm) > 0 {
			effects = append(effects, fmt.Sprintf("gate %d", s.Gate))
		}
		left := ""
		if len(s.Left) > 0 {
			left = fmt.Sprintf(", leaving %d unguarded", len(s.Left))
		}
		return fmt.Sprintf("the app tags its commands %s: %s would %s%s; fisk-mcp init APP writes a configuration with them to review",
			joinAnd(tagged), strings.Join(s.Flags(), " "), joinAnd(effects), left)
	}
	if len(s.Unguarded) == 0 {
		return ""
	}
	return "tag commands ai:confirm (gated) or ai:read_only in the app, gate them by a tag of the app's with --confirm-tag TAG, or leave them out with --exclude; fisk-mcp init APP writes a configuration to review"
}

func firstNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Write prints the warning (as unguarded:) and the hint, each on a line of its own, after
// a blank line; nothing when there is neither.
func (s Safety) Write(w io.Writer) error {
	warning, hint := s.Warning(), s.Hint()
	if warning == "" && hint == "" {
		return nil
	}
	fmt.Fprintln(w)
	if warning != "" {
		fmt.Fprintf(w, "unguarded: %s: %s\n", warning, firstNames(s.Unguarded, 5))
	}
	if hint == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "hint: %s\n", hint)
	return err
}

// Log logs the warning, with the first few tools, and the hint.
func (s Safety) Log(log *slog.Logger) {
	if w := s.Warning(); w != "" {
		log.Warn(w, "tools", s.Unguarded[:min(len(s.Unguarded), 5)], "of", len(s.Unguarded))
	}
	if h := s.Hint(); h != "" {
		log.Info(h)
	}
}
