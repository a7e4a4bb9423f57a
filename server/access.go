package server

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/fisk-mcp/fisk-mcp/discovery"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/identity"
	"github.com/fisk-mcp/fisk-mcp/policy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// access is what one caller may do under the policy in force; nil (no
// policy) allows everything, today's behaviour. Everything that names
// tools asks it: tools/list, search_tools (results and description),
// describe_tools, both executors and the "did you mean" answers, so a
// tool the caller may not see is answered exactly like one that does not
// exist.
type access struct {
	p *policy.Policy
	c *policy.Caller
}

// accessOf is the access of the caller of a request with extra (nil over
// stdio, and for an in-memory session): the OAuth user its token names,
// the static caller for a request the shared token admitted, the local
// caller otherwise.
func (s *Server) accessOf(extra *mcp.RequestExtra) *access {
	p := s.cfg.Policy.Load()
	if p == nil {
		return nil
	}
	switch {
	case extra != nil && extra.TokenInfo != nil:
		return &access{p: p, c: p.User(extra.TokenInfo.UserID, identity.Claims(extra.TokenInfo))}
	case extra != nil && extra.Header != nil && s.staticToken.Load():
		return &access{p: p, c: policy.Static()}
	}
	return &access{p: p, c: policy.Local()}
}

// visible reports whether the caller may see t: list it, search for it,
// have it described or suggested.
func (a *access) visible(t exposure.Tool) bool {
	return a == nil || a.p.Allowed(a.c, policy.List, t)
}

// callable reports whether the caller may run t: a tool it may not see,
// it may not call either, so a call never tells it that the tool exists.
func (a *access) callable(t exposure.Tool) bool {
	return a == nil || (a.p.Allowed(a.c, policy.List, t) && a.p.Allowed(a.c, policy.Call, t))
}

// approvesOwn reports whether the caller may approve its own call of t,
// through its client or on a page: the policy's approve action with the
// caller as both approver and caller.
func (a *access) approvesOwn(t exposure.Tool) bool {
	return a == nil || a.p.Approves(a.c, a.c.ID(), t)
}

// filter is a.visible as discovery takes it: nil for everything.
func (a *access) filter() func(exposure.Tool) bool {
	if a == nil {
		return nil
	}
	return a.visible
}

// maxCallerListings bounds the per-caller listings kept for one set: one
// per distinct set of visible tools, which a handful of roles make few.
// Past it they are dropped and built again.
const maxCallerListings = 64

// callerListings are a listing's versions for callers, by the set of
// tools they may see: two callers with the same rights share one, whoever
// they are.
type callerListings struct {
	mu sync.Mutex
	by map[[sha256.Size]byte]*listing
}

// forCaller is l as a caller with access a sees it: the
// tools a may see, and, deferred, search_tools describing only them.
func (l *listing) forCaller(a *access) *listing {
	set := l.set
	if a == nil || set == nil {
		return l
	}
	h := sha256.New()
	var seen []exposure.Tool
	for _, t := range set.Tools() {
		if t.MCPExposable() && a.visible(t) {
			seen = append(seen, t)
			h.Write([]byte(t.Name()))
			h.Write([]byte{0})
		}
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	l.callers.mu.Lock()
	defer l.callers.mu.Unlock()
	if c := l.callers.by[key]; c != nil {
		return c
	}
	names := map[string]bool{}
	for _, t := range seen {
		names[t.Name()] = true
	}
	c := &listing{deferred: l.deferred, tools: []*mcp.Tool{}, encoded: map[*mcp.Tool]json.RawMessage{}, private: true}
	for _, d := range l.tools {
		switch {
		case l.deferred && d.Name == discovery.SearchTools:
			own := discovery.SearchDescriptor(set, a.visible)
			c.tools = append(c.tools, own)
			if wire, err := encodeTool(own); err == nil {
				c.encoded[own] = wire
			}
		case names[d.Name] || (l.deferred && discovery.Is(d.Name)):
			c.tools = append(c.tools, d)
			if wire, ok := l.encoded[d]; ok {
				c.encoded[d] = wire
			}
		}
	}
	if l.callers.by == nil || len(l.callers.by) >= maxCallerListings {
		l.callers.by = map[[sha256.Size]byte]*listing{}
	}
	l.callers.by[key] = c
	return c
}

// PolicyChanged tells every connected client that its list may have
// changed: the policy in force (Config.Policy) was replaced, so a caller
// may now see other tools. The SDK sends notifications/tools/list_changed
// for every registration, so one of the set's is registered again as it
// is.
func (s *Server) PolicyChanged() {
	s.publish.Lock()
	defer s.publish.Unlock()
	if names := sortedNames(s.added); len(names) > 0 {
		r := s.added[names[0]]
		s.mcp.AddTool(r.tool, r.handler)
	}
}
