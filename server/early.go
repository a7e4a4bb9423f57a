package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's first tools/list waits for the whole start-up: the apps'
// introspection, then decoding their documents, building the set, and
// its descriptors and their encoding (nats: some 15 ms after its own 25).
// When nothing that goes into the list has changed since an earlier
// start, the list that start sent is already known. NewEarly serves it,
// kept from that start (see Early), while the set is still being built,
// and Complete puts the set in force once it is.
//
// What makes this safe is that the early list is only what tools/list
// answers: every call waits for the set (Complete), and is looked up,
// checked, gated and run on it alone, so a list kept wrongly can show a
// stale tool, never run one. Complete compares the set's own list with
// the early one, and when they differ, in anything, clients are sent
// list_changed, as after a reload.

// Early is a server's tools/list kept for a later start over the same
// inputs: the list as sent, and what the SDK held.
type Early struct {
	// Deferred is whether the list was the deferred one.
	Deferred bool
	// Listed is the list in its order: each tool's name and wire
	// encoding.
	Listed []EarlyTool
	// Registered is every tool registered with the SDK, by name: Wire is
	// nil for a registration for dispatch only (see dispatchDescriptor),
	// otherwise the wire encoding of the descriptor registered.
	Registered []EarlyTool
}

// EarlyTool is one tool of an Early.
type EarlyTool struct {
	Name string
	Wire json.RawMessage
}

// NewEarly returns a server that answers tools/list with early, before
// it has a tool set: every tools/call waits until Complete gives it one,
// or until Abandon says there will be none. The SDK's registrations are
// early's, so that Complete changes them only where the set differs, and
// a client is told the list changed only when it did.
func NewEarly(cfg Config, early *Early) (*Server, error) {
	if early == nil {
		return nil, errors.New("server: no early list to serve")
	}
	s, err := construct(cfg, &exposure.Current{})
	if err != nil {
		return nil, err
	}
	s.early = early
	l := &listing{deferred: early.Deferred, tools: make([]*mcp.Tool, len(early.Listed)), encoded: make(map[*mcp.Tool]json.RawMessage, len(early.Listed))}
	for i, t := range early.Listed {
		d := &mcp.Tool{Name: t.Name}
		l.tools[i], l.encoded[d] = d, t.Wire
	}
	s.listing.Store(l)
	regs := make([]registration, len(early.Registered))
	for i, t := range early.Registered {
		r := registration{tool: &mcp.Tool{Name: t.Name, InputSchema: dispatchSchema}, handler: s.handler(t.Name)}
		if t.Wire != nil {
			d := &mcp.Tool{}
			if err := json.Unmarshal(t.Wire, d); err != nil || d.Name != t.Name {
				return nil, fmt.Errorf("server: the early registration of %q does not decode", t.Name)
			}
			r.tool = d
			if i := slices.IndexFunc(discoveryTools, func(d discoveryTool) bool { return d.name == t.Name }); i >= 0 && early.Deferred {
				r.handler = discoveryTools[i].handler(s)
			}
		}
		regs[i] = r
	}
	// AddTool panics on a descriptor it refuses: a kept list that is not
	// one this server wrote is an error, not a crash.
	if err := addRecovering(s, regs); err != nil {
		return nil, err
	}
	return s, nil
}

// addRecovering registers regs with the SDK, reporting a refusal as an
// error.
func addRecovering(s *Server, regs []registration) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("server: an early registration was refused: %v", p)
		}
	}()
	s.addTools(regs)
	return nil
}

// Complete puts set in force on a server NewEarly made, and frees the
// calls waiting for it. It reports whether set's list is exactly the
// early one; if not, every client is sent list_changed. The SDK's
// registrations are replaced only where set's differ.
func (s *Server) Complete(set *exposure.ToolSet) (kept bool) {
	s.publish.Lock()
	defer s.publish.Unlock()
	if s.early == nil {
		panic("server: Complete on a server NewEarly did not make, or completed already")
	}
	deferred := s.deferred(set)
	want := s.wanted(set, deferred)
	l := listingOf(want, deferred)
	kept = s.early.lists(l)

	early := make(map[string]json.RawMessage, len(s.early.Registered))
	for _, t := range s.early.Registered {
		early[t.Name] = t.Wire
	}
	var add []registration
	for _, name := range sortedNames(want) {
		r := want[name]
		if wire, ok := early[name]; !ok || !registeredAs(r, wire) {
			add = append(add, r)
		}
	}
	var gone []string
	for name := range early {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)

	s.tools.Publish(set)
	s.listing.Store(l)
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	s.added = want
	s.addTools(add)
	if !kept && len(add) == 0 && len(gone) == 0 && len(want) > 0 {
		// Only the list's text changed: registering one tool again as it
		// is has the SDK tell every client.
		s.addTools([]registration{want[sortedNames(want)[0]]})
	}
	s.early = nil
	close(s.ready)
	s.log.Info("tool set completed", "tools", served(set), "deferred", deferred, "early_list_kept", kept)
	return kept
}

// Abandon tells the calls waiting on a server NewEarly made that no set
// will come, with err as the reason; they are answered that nothing ran.
// It does nothing once Complete has run.
func (s *Server) Abandon(err error) {
	s.abandonOnce.Do(func() {
		s.abandonErr = err
		close(s.abandoned)
	})
}

// awaitReady waits until the server has its tool set: at once for one
// New made.
func (s *Server) awaitReady(ctx context.Context) error {
	select {
	case <-s.ready:
		return nil
	default:
	}
	if s.cfg.AwaitingSet != nil {
		s.awaitingOnce.Do(s.cfg.AwaitingSet)
	}
	select {
	case <-s.ready:
		return nil
	case <-s.abandoned:
		return fmt.Errorf("the server could not load its tools (%v)", s.abandonErr)
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// lists reports whether l is the list e kept, byte for byte.
func (e *Early) lists(l *listing) bool {
	if e.Deferred != l.deferred || len(e.Listed) != len(l.tools) {
		return false
	}
	for i, t := range l.tools {
		wire, ok := l.encoded[t]
		if !ok || t.Name != e.Listed[i].Name || !bytes.Equal(wire, e.Listed[i].Wire) {
			return false
		}
	}
	return true
}

// registeredAs reports whether the SDK holds r's descriptor when it holds
// the early registration wire: for dispatch only (nil), or a descriptor
// whose wire encoding is r's. The SDK reads a registered descriptor only
// to route calls by its name and, over HTTP, to check headers its schema
// names; a descriptor decoded from r's own encoding serves both as r's
// does.
func registeredAs(r registration, wire json.RawMessage) bool {
	if forDispatch(r.tool) {
		return wire == nil
	}
	if wire == nil {
		return false
	}
	own, err := registeredWire(r)
	return err == nil && bytes.Equal(own, wire)
}

// registeredWire is the wire encoding of r's registered descriptor.
func registeredWire(r registration) (json.RawMessage, error) {
	if r.tool == r.listed && r.wire != nil {
		return r.wire, nil
	}
	return encodeTool(r.tool)
}

// Early returns the list the server answers and its SDK registrations,
// for NewEarly in a later start over the same inputs; nil before the
// server has a set, or when part of the list has no wire encoding (a
// descriptor that failed to encode is reported by every tools/list
// instead).
func (s *Server) Early() *Early {
	select {
	case <-s.ready:
	default:
		return nil
	}
	s.publish.Lock()
	defer s.publish.Unlock()
	l := s.listing.Load()
	e := &Early{Deferred: l.deferred, Listed: make([]EarlyTool, len(l.tools))}
	for i, t := range l.tools {
		wire, ok := l.encoded[t]
		if !ok {
			return nil
		}
		e.Listed[i] = EarlyTool{Name: t.Name, Wire: wire}
	}
	for _, name := range sortedNames(s.added) {
		r := s.added[name]
		t := EarlyTool{Name: name}
		if !forDispatch(r.tool) {
			wire, err := registeredWire(r)
			if err != nil {
				return nil
			}
			t.Wire = wire
		}
		e.Registered = append(e.Registered, t)
	}
	return e
}
