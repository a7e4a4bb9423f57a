package exposure

import (
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Skip records a tool left out of a reloaded set because its final name was
// already taken: by a tool earlier in the fixed order, or, in a Rebuild, by
// the tool that served the name in the previous set, which keeps it even
// against a newcomer earlier in the order. Reason says which. Tools removed
// by the operator's selection are not skips.
type Skip struct {
	Name   string // the colliding final name
	Source string // the tool left out (application and command, or custom tool)
	Reason string // what took the name first
}

// ToolSet is an immutable set of tools addressed by unique names. A change
// arrives as a whole new set (see Current). Every accessor returns a copy;
// a nil *ToolSet is an empty set.
type ToolSet struct {
	tools    []Tool // sorted by name
	byName   map[string]*member
	warnings []string
	skipped  []Skip
}

// member is a tool of a set with its hashes (see descriptorHashes and
// bindingOf), computed once, when first asked for: by Diff, on a reload,
// or by Binding, on the tool's first call. Hashing every schema when the
// set is built would put it on the start-up path, before the first
// tools/list, which needs none of it.
type member struct {
	tool       Tool
	once       sync.Once
	descriptor digest // for Diff
	binding    digest // for Binding
}

func (m *member) hashes() *member {
	m.once.Do(func() {
		d, core := descriptorHashes(m.tool)
		m.descriptor, m.binding = d, bindingOf(m.tool, d, core)
	})
	return m
}

// newToolSet indexes tools, whose names are already unique. It also
// fixes the identity of every command's binary that its runs are held to
// (see loadedBinary): the file introspected by Load, or, for a model the
// caller supplied, the file at the path now, however much later a run or
// a binding first asks for it.
func newToolSet(tools []Tool, warnings []string, skipped []Skip) *ToolSet {
	s := &ToolSet{
		tools:    slices.Clone(tools),
		byName:   make(map[string]*member, len(tools)),
		warnings: warnings,
		skipped:  skipped,
	}
	for _, t := range tools {
		s.byName[t.Name()] = &member{tool: t}
		if b, ok := t.(binaryBacked); ok {
			b.program().get()
		}
	}
	slices.SortFunc(s.tools, func(a, b Tool) int { return strings.Compare(a.Name(), b.Name()) })
	return s
}

// HashBinaries hashes now the content of every binary of the set that is
// not hashed yet (see loadedBinary.content), which a binding otherwise
// does when a call first needs one: a caller runs it once the CPUs are
// idle, after the start-up or a reload, so that no call waits for it. It
// returns once every binary is hashed, with their number; a binary that
// cannot be read costs its tools' bindings their reach beyond this host,
// as on any load.
func (s *ToolSet) HashBinaries() int {
	if s == nil {
		return 0
	}
	seen := map[*loadedBinary]bool{}
	for _, t := range s.tools {
		if b, ok := t.(binaryBacked); ok && !seen[b.program()] {
			seen[b.program()] = true
			b.program().content()
		}
	}
	return len(seen)
}

// Lookup returns the tool called name. A command tagged ai:deny is never in
// a set, so it cannot be found.
func (s *ToolSet) Lookup(name string) (Tool, bool) {
	if s == nil {
		return nil, false
	}
	m, ok := s.byName[name]
	if !ok {
		return nil, false
	}
	return m.tool, true
}

// Binding identifies the tool called name as a whole: for a command, what
// a call depends on (schema, gate, behaviour, source and title) and the
// binary it was loaded from (its path and the SHA-256 of its content); for
// any other tool, its descriptor. Equal bindings from two lookups mean the
// same tool, so a caller holding a tool across a wait (for a person's
// approval, for a concurrency slot) can tell whether a reload changed it
// meanwhile; an approval or a prepared call is bound to it.
//
// The string is opaque, and the same on every replica that serves the
// same bytes at the same path with the same configuration: it holds
// nothing local to a host (no inode, no times), so an approval asked by
// one replica is accepted by another. Whether the file at the path is still
// the one loaded is checked locally before each run (Call.CheckBinary). ok
// is false when the set has no such tool.
func (s *ToolSet) Binding(name string) (binding string, ok bool) {
	if s == nil {
		return "", false
	}
	m, ok := s.byName[name]
	if !ok {
		return "", false
	}
	b := m.hashes().binding
	return hex.EncodeToString(b[:]), true
}

// Tools returns the tools sorted by name, in a slice the caller owns.
func (s *ToolSet) Tools() []Tool {
	if s == nil {
		return nil
	}
	return slices.Clone(s.tools)
}

// Len is the number of tools.
func (s *ToolSet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.tools)
}

// Warnings are the problems that did not stop the load, in a fixed order:
// unknown ai: tags, shortened names, confirm tags that match no tool.
func (s *ToolSet) Warnings() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.warnings)
}

// Skipped lists the tools a reload left out because of a name collision.
func (s *ToolSet) Skipped() []Skip {
	if s == nil {
		return nil
	}
	return slices.Clone(s.skipped)
}

// SetDiff is what changed between two sets, each list sorted by name.
type SetDiff struct {
	Added   []string
	Removed []string
	// Changed lists names present in both sets whose descriptor
	// (description, schema, behaviour, gate, exposure, kind, source)
	// differs.
	Changed []string
}

// Empty reports whether nothing changed.
func (d SetDiff) Empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// Diff compares two sets; a nil set is empty, so Diff(nil, s) adds all.
func Diff(old, new *ToolSet) SetDiff {
	var d SetDiff
	for _, t := range new.Tools() {
		name := t.Name()
		if _, ok := old.Lookup(name); !ok {
			d.Added = append(d.Added, name)
		} else if old.byName[name].hashes().descriptor != new.byName[name].hashes().descriptor {
			d.Changed = append(d.Changed, name)
		}
	}
	for _, t := range old.Tools() {
		if _, ok := new.Lookup(t.Name()); !ok {
			d.Removed = append(d.Removed, t.Name())
		}
	}
	return d
}

// Current is the tool set in force. Readers always see a whole set, never a
// mixture of two; a new set replaces the old one in a single atomic step.
// The zero value holds no set (Load returns nil, an empty set).
type Current struct {
	p atomic.Pointer[ToolSet]
}

// NewCurrent returns a Current holding s.
func NewCurrent(s *ToolSet) *Current {
	c := &Current{}
	c.p.Store(s)
	return c
}

// Load returns the set in force.
func (c *Current) Load() *ToolSet { return c.p.Load() }

// Publish makes s the set in force and returns what changed from the set it
// replaced.
func (c *Current) Publish(s *ToolSet) SetDiff {
	old := c.p.Swap(s)
	return Diff(old, s)
}
