package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/fisk-mcp/fisk-mcp/discovery"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is an MCP server over the current tool set. Create it with New,
// serve it with ServeStdio or with ListenHTTP and HTTPServer.Serve, and
// replace its tools with Publish. A Server is drained once: after a serve method has drained it
// on shutdown it refuses further calls.
type Server struct {
	cfg     Config
	log     *slog.Logger
	tools   *exposure.Current
	mcp     *mcp.Server
	slots   *slotPool
	calls   *callTracker
	publish sync.Mutex              // serialises Publish
	added   map[string]registration // registered name -> its registration
	// listing is what tools/list answers for the set last registered.
	listing atomic.Pointer[listing]
	// discovery are the discovery tools a deferred set registers, and the
	// search index of the set in force.
	discovery *discovery.Tools
	// staticToken is set when the HTTP endpoint admits callers by the
	// shared bearer token: a policy's Caller::"static".
	staticToken atomic.Bool

	// startup ends the start-up (see startup.go).
	startup startup

	// onSlotWait, when set by tests, is called when a call starts waiting
	// for a concurrency slot.
	onSlotWait func(tool string)
	// onPrepare, when set by tests, is called each time a call is
	// validated and rendered (Tool.Prepare).
	onPrepare func(tool string)
	// onAddTools, when set by tests, is called with the names of the
	// tools registered with the SDK, before they are.
	onAddTools func(names []string)
}

// New returns a server over tools, registering every MCP-exposable tool of
// tools.Load(). tools stays the source of truth: calls look tools up in its
// current set, and Publish swaps it.
func New(cfg Config, tools *exposure.Current) (*Server, error) {
	if tools == nil || tools.Load() == nil {
		return nil, errors.New("server: no tool set to serve; load one with exposure.Load and wrap it in exposure.NewCurrent")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:   cfg,
		log:   cfg.Logger,
		tools: tools,
		slots: newSlotPool(cfg.Concurrency, cfg.ClientConcurrency),
		calls: newCallTracker(),
		added: map[string]registration{},
	}
	s.discovery = s.newDiscovery()
	s.startup.init(s.readySet)
	caps := capabilities()
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: cfg.Name, Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: cfg.Instructions,
		Logger:       sdkLogger(cfg.Logger),
		Capabilities: caps,
	})
	// Each wraps the chain built so far: the gate's middleware bounds the
	// SDK's wait for a person, the server's sees each tools/call once and
	// writes its line, the list middleware answers tools/list for a
	// deferred set, the next refuses the methods of capabilities the
	// server does not declare, and the outermost times and traces every
	// request (when telemetry is on).
	s.mcp.AddReceivingMiddleware(cfg.Gate.Middleware())
	s.mcp.AddReceivingMiddleware(s.callMiddleware)
	s.mcp.AddReceivingMiddleware(s.listMiddleware)
	s.mcp.AddReceivingMiddleware(undeclaredMethods(caps))
	s.mcp.AddReceivingMiddleware(s.telemetryMiddleware)
	s.register(tools.Load())
	return s, nil
}

// MCP returns the underlying SDK server, for callers that serve it over a
// transport of their own.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Tools returns the tool set currently served.
func (s *Server) Tools() *exposure.ToolSet { return s.tools.Load() }

// Publish swaps in set atomically and brings the SDK's registrations in line
// with it: new and changed tools are (re)registered, vanished ones removed,
// and every connected client is sent notifications/tools/list_changed.
// Calls already running keep the tool they started with; a call that starts
// after Publish sees only set.
//
// Everything slow (each descriptor and its encoding) is done before set is
// put in force, and tools/list switches to set's list right after it: a
// list answered while the new set is being prepared is the old set's, with
// the old set still in force, never the old list for the new set, which
// would go on showing a tool the new set denies.
//
// After the start-up (see startup.go), Publish readies the new set for
// the calls to come (see readySet) before it returns.
func (s *Server) Publish(set *exposure.ToolSet) exposure.SetDiff {
	s.publish.Lock()
	p := s.planRegistrations(set)
	diff := s.tools.Publish(set)
	s.applyRegistrations(p)
	s.publish.Unlock()
	s.log.Info("tool set published", "tools", served(set), "deferred", p.listing.deferred,
		"added", diff.Added, "removed", diff.Removed, "changed", diff.Changed)
	select {
	case <-s.startup.over:
		s.readySet()
	default:
	}
	return diff
}

// registration is one tool as registered with the SDK (tool, for its
// calls) and as tools/list shows it (listed; nil when a deferred list
// leaves it out).
type registration struct {
	tool   *mcp.Tool
	listed *mcp.Tool
	// wire is listed's wire encoding (see encodeTool), nil when it has
	// none: tools/list then encodes it itself, and reports what fails.
	wire    json.RawMessage
	handler mcp.ToolHandler
	noDefer bool
}

// register makes the SDK's tools equal to the MCP-exposable tools of set,
// plus, when set is deferred, the discovery tools, and fixes what tools/list
// answers (see planRegistrations and applyRegistrations).
//
// Callers hold s.publish (or own s exclusively, as New does).
func (s *Server) register(set *exposure.ToolSet) { s.applyRegistrations(s.planRegistrations(set)) }

// registering is a set's registrations, worked out by planRegistrations
// and not yet applied.
type registering struct {
	listing *listing
	gone    []string       // registered names the set does not serve, sorted
	add     []registration // new and changed registrations
}

// planRegistrations works out set's registrations and list. Every served
// tool is registered in both modes, so a deferred tool is still called
// directly through the SDK's own path; the list is the server's own in
// both (see listMiddleware). It changes nothing; s.publish is held.
func (s *Server) planRegistrations(set *exposure.ToolSet) registering {
	deferred := s.deferred(set)
	want := s.wanted(set, deferred)
	p := registering{listing: listingOf(want, deferred), add: s.changed(want)}
	p.listing.set = set
	for name := range s.added {
		if _, ok := want[name]; !ok {
			p.gone = append(p.gone, name)
		}
	}
	sort.Strings(p.gone)
	return p
}

// wanted is every registration set needs: its tools' and, when it is
// deferred, the discovery tools'.
func (s *Server) wanted(set *exposure.ToolSet, deferred bool) map[string]registration {
	want := s.registrations(set, deferred)
	if deferred {
		for _, desc := range discovery.Descriptors(set) {
			if _, taken := want[desc.Name]; taken {
				s.log.Warn("a served tool has the name of a discovery tool; while the list is deferred, call it through "+discovery.CallTool, "tool", desc.Name)
			}
			wire, _ := encodeTool(desc)
			want[desc.Name] = registration{tool: desc, listed: desc, wire: wire, handler: s.discovery.Handler(desc.Name), noDefer: true}
		}
	}
	return want
}

// applyRegistrations puts p's list in force, then changes the SDK's
// registrations in one run, nothing slow between its changes, so that its
// debounced list_changed goes out once, and by then a client that lists
// again gets the new list. s.publish is held.
func (s *Server) applyRegistrations(p registering) {
	s.listing.Store(p.listing)
	if len(p.gone) > 0 {
		s.mcp.RemoveTools(p.gone...)
		for _, name := range p.gone {
			delete(s.added, name)
		}
	}
	for _, r := range p.add {
		s.added[r.tool.Name] = r
	}
	s.addTools(p.add)
	s.labelTools(p.listing)
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// hasArgument reports whether t's input schema has a top-level property of
// that name; nothing for a tool not found, which the call refuses anyway.
func hasArgument(t exposure.Tool) func(string) bool {
	return func(key string) bool {
		if t == nil {
			return false
		}
		props, _ := t.InputSchema()["properties"].(map[string]any)
		_, ok := props[key]
		return ok
	}
}

// handler is the SDK handler registered for the tool called name. It
// resolves name in the current set at call time, so a call never runs a
// tool that a Publish has withdrawn.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tool, _ := s.tools.Load().Lookup(name)
		return s.call(ctx, req, target{name: name, args: discovery.Arguments(s.log, req, hasArgument(tool))})
	}
}
