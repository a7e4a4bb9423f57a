package server

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/discovery"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DeferMode says when tools/list is deferred: instead of every served
// tool, it then holds the tools tagged ai:no_defer, in full, and the fixed
// discovery tools (search_tools, describe_tools, call_read_only_tool,
// call_tool) through which the model finds, reads and runs the others.
// Every served tool stays callable by its name either way.
type DeferMode string

const (
	// DeferAuto defers when more than Config.DeferThreshold tools are
	// served, judged again on every Publish. It is the default: clients
	// that cap the tools they take (VS Code 128, Cursor 80, Windsurf 50,
	// across all their servers) fail outright on a large CLI, and one that
	// defers by itself (Claude Code) still works through the discovery
	// tools, which are marked to load up front.
	DeferAuto DeferMode = "auto"
	// DeferAlways defers whatever the size of the set.
	DeferAlways DeferMode = "always"
	// DeferNever lists every tool, for clients whose own tool search
	// handles any number of tools (Claude Code with its tool search on).
	DeferNever DeferMode = "never"
)

// DefaultDeferThreshold is the served set size above which DeferAuto
// defers. It stays under the smallest cap a known client sets (Windsurf:
// 50 tools, counted over all of a user's servers) with room for other
// servers, and past it the model's choice of tool is known to suffer; a
// smaller set costs little context and gains nothing from a search.
const DefaultDeferThreshold = 40

// deferred reports whether set is deferred under the server's mode.
func (s *Server) deferred(set *exposure.ToolSet) bool { return Defers(s.cfg, set) }

// served counts the tools of set that MCP clients may call.
func served(set *exposure.ToolSet) int {
	n := 0
	for _, t := range set.Tools() {
		if t.MCPExposable() {
			n++
		}
	}
	return n
}

// answers reports whether a tools/call of name by a caller with access a
// reaches a tool: a served tool of the set in force it may call, or a
// discovery tool of a deferred set.
func (s *Server) answers(name string, a *access) bool {
	if t, ok := s.tools.Load().Lookup(name); ok && t.MCPExposable() && a.callable(t) {
		return true
	}
	l := s.listing.Load()
	return l != nil && l.deferred && discovery.Is(name)
}

// unknownTool is the answer to a name the server does not serve (or that
// the caller with access a may not call), with the served names it most
// likely meant among those the caller may see.
func (s *Server) unknownTool(set *exposure.ToolSet, name string, a *access) string {
	msg := "unknown tool " + echo.Quoted(name)
	if near := s.discovery.Closest(set, name, 3, a.filter()); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	}
	if l := s.listing.Load(); l != nil && l.deferred {
		return msg + " (search_tools finds tools by what they do)"
	}
	return msg + " (tools/list names every tool)"
}

// unknownToolError is unknownTool as the protocol error a direct call of
// an unknown name gets.
func (s *Server) unknownToolError(set *exposure.ToolSet, name string, a *access) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: s.unknownTool(set, name, a)}
}

// newDiscovery returns the discovery tools of s: they search and describe
// the set in force, run what an executor names through call, and record
// what they answer themselves as a call of their own.
func (s *Server) newDiscovery() *discovery.Tools {
	return discovery.New(discovery.Config{
		InForce: s.tools.Load,
		Visible: func(req *mcp.CallToolRequest) func(exposure.Tool) bool {
			return s.accessOf(extraOf(req)).filter()
		},
		Requests: s.cfg.SearchRequests,
		Describe: func(t exposure.Tool) (*mcp.Tool, json.Marshaler) {
			d := descriptor(t, s.cfg.OutputSchema)
			return d, (*wireAnnotations)(d.Annotations)
		},
		Run:    s.callVia,
		Record: s.recordDiscovery,
		Log:    s.log,
	})
}

// callVia is a call an executor carries: the call path of a direct call
// of name, its record naming name and the executor.
func (s *Server) callVia(ctx context.Context, req *mcp.CallToolRequest, name string, args json.RawMessage, via *discovery.Executor) (*mcp.CallToolResult, error) {
	if st := requestOf(ctx); st != nil {
		st.rec.tool, st.rec.argv, st.rec.executor = name, name, via.Name()
	}
	return s.call(ctx, req, target{name: name, args: args, via: via})
}

// discoveryResults are the results a discovery tool's call records.
var discoveryResults = map[discovery.Outcome]ResultCode{
	discovery.OK:               ResultOK,
	discovery.InvalidArguments: ResultInvalidArguments,
	discovery.UnknownTools:     ResultUnknownTool,
	discovery.Failed:           ResultError,
}

// recordDiscovery starts the record of a call a discovery tool answers
// itself, and returns the function that completes it: it is one
// tools/call like any other and writes one line, with the call's
// arguments compact and redacted for its argv.
func (s *Server) recordDiscovery(ctx context.Context, req *mcp.CallToolRequest) func(discovery.Outcome, error) {
	st := requestOf(ctx)
	own := false // a call reaching the handler without the middleware logs itself
	if st == nil {
		st, own = newCallState(req), true
	}
	st.handled = true
	rec := st.rec
	rec.kind, rec.decision = exposure.KindBuiltin, decisionUngated
	if raw := discovery.Arguments(nil, req, nil); json.Valid(raw) {
		var compact bytes.Buffer
		_ = json.Compact(&compact, raw)
		rec.argv = s.cfg.Redactor.Redact(rec.tool + " " + compact.String())
	}
	return func(outcome discovery.Outcome, err error) {
		rec.result, rec.err = discoveryResults[outcome], err
		if own {
			s.logCall(ctx, rec)
		}
	}
}

// extraOf is req's Extra, nil for no request.
func extraOf(req *mcp.CallToolRequest) *mcp.RequestExtra {
	if req == nil {
		return nil
	}
	return req.Extra
}
