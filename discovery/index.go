package discovery

import (
	"sync"
	"sync/atomic"

	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// view is the search index of one set, built on first use: a set that is
// never searched and never called by a wrong name costs nothing.
type view struct {
	set   *exposure.ToolSet
	once  sync.Once
	index atomic.Pointer[catalog.Index]
}

// Index returns the search index of set's served tools. Only the tools MCP
// clients may call are in it, so a denied, excluded, hidden or agent-only
// tool is never found, described or suggested.
//
// One index is kept, the set in force's, built by the first call that
// needs it; a server readies a deferred set by calling Index before the
// model's first search. A call still running on a set a reload replaced
// builds that set's index for itself, rather than evict the one kept for
// the set in force.
func (d *Tools) Index(set *exposure.ToolSet) *catalog.Index {
	v := d.kept.Load()
	if v == nil || v.set != set {
		fresh := &view{set: set}
		if set != d.cfg.InForce() {
			v = fresh
		} else if d.kept.CompareAndSwap(v, fresh) {
			v = fresh
		} else if v = d.kept.Load(); v == nil || v.set != set {
			v = fresh // another set won meanwhile; this call still uses its own
		}
	}
	v.once.Do(func() {
		var entries []catalog.Entry
		for _, e := range catalog.FromToolSet(set, gated, d.cfg.Requests) {
			if t, ok := set.Lookup(e.Name); ok && t.MCPExposable() {
				entries = append(entries, e)
			}
		}
		v.index.Store(catalog.New(entries))
	})
	return v.index.Load()
}

// Built reports whether the index kept is set's and is built, which
// Index has then no more to do for set.
func (d *Tools) Built(set *exposure.ToolSet) bool {
	v := d.kept.Load()
	return v != nil && v.set == set && v.index.Load() != nil
}

// gated reports whether t needs a person's approval; a tool that cannot
// say is shown as gated, since it will not run without one.
func gated(t exposure.Tool) bool {
	c, ok := t.(exposure.Confirmable)
	return !ok || c.NeedsConfirm()
}

// Closest returns up to limit served names of set closest to name, among
// the tools visible reports (all, for nil): the "did you mean" of an
// unknown name, which never names a tool the caller may not see.
func (d *Tools) Closest(set *exposure.ToolSet, name string, limit int, visible func(exposure.Tool) bool) []string {
	if visible == nil {
		return d.Index(set).Closest(name, limit)
	}
	var out []string
	for _, n := range d.Index(set).Closest(name, len(set.Tools())) {
		if t, ok := set.Lookup(n); ok && visible(t) {
			out = append(out, n)
			if len(out) == limit {
				break
			}
		}
	}
	return out
}
