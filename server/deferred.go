package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/exposure"
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

// The vendor _meta keys of tool descriptors that clients which defer tools
// by themselves read (Claude Code): alwaysLoad sends the tool to the model
// up front, searchHint adds words its tool search matches.
const (
	metaAlwaysLoad = "anthropic/alwaysLoad"
	metaSearchHint = "anthropic/searchHint"
)

// listing is what tools/list answers for one published set: nil tools
// means every registered tool (the SDK answers), otherwise exactly tools.
type listing struct {
	deferred bool
	tools    []*mcp.Tool
}

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

// deferredListing is the fixed list of a deferred set: the discovery tools
// in their fixed order, then the ai:no_defer tools by name, each in full.
// It depends on nothing but the set, so every session and transport gets
// the same list. want holds the descriptors to be registered.
func deferredListing(want map[string]registration) *listing {
	l := &listing{deferred: true}
	for _, d := range discoveryTools {
		l.tools = append(l.tools, want[d.name].tool)
	}
	for _, name := range sortedNames(want) {
		if r := want[name]; r.noDefer && !isDiscovery(name) {
			l.tools = append(l.tools, r.tool)
		}
	}
	return l
}

// listMiddleware answers tools/list for a deferred set with its fixed
// list, in one page. Every served tool stays registered with the SDK, so a
// direct call of a deferred tool takes the SDK's own path (including its
// elicitation on older protocols); only the list differs. Either list is
// sent in the server's own encoding (see wireAnnotations).
func (s *Server) listMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			return next(ctx, method, req)
		}
		l := s.listing.Load()
		if l == nil || !l.deferred {
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				return onTheWire(lr), nil
			}
			return res, err
		}
		if lr, ok := req.(*mcp.ListToolsRequest); ok && lr.Params != nil && lr.Params.Cursor != "" {
			// The deferred list is one page and issues no cursor: this one
			// belongs to a list from before the mode changed.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor: the tool list changed; list the tools again from the start"}
		}
		return onTheWire(&mcp.ListToolsResult{Tools: l.tools, Cacheable: mcp.Cacheable{CacheScope: "public"}}), nil
	}
}

// answers reports whether a tools/call of name reaches a tool: a served
// tool of the set in force, or a discovery tool of a deferred set.
func (s *Server) answers(name string) bool {
	if t, ok := s.tools.Load().Lookup(name); ok && t.MCPExposable() {
		return true
	}
	l := s.listing.Load()
	return l != nil && l.deferred && isDiscovery(name)
}

// unknownTool is the answer to a name the server does not serve, with the
// served names it most likely meant.
func (s *Server) unknownTool(set *exposure.ToolSet, name string) string {
	msg := fmt.Sprintf("unknown tool %q", name)
	if near := s.indexOf(set).Closest(name, 3); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	}
	if l := s.listing.Load(); l != nil && l.deferred {
		return msg + " (search_tools finds tools by what they do)"
	}
	return msg + " (tools/list names every tool)"
}

// unknownToolError is unknownTool as the protocol error a direct call of
// an unknown name gets.
func (s *Server) unknownToolError(set *exposure.ToolSet, name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: s.unknownTool(set, name)}
}

// maxSearchHint bounds a searchHint in bytes: it is a few extra words for a
// client's tool search, not a second description.
const maxSearchHint = 160

// vendorMeta is the _meta of a served tool's descriptor: a searchHint for
// a tool with words to add, and alwaysLoad for an ai:no_defer tool, so
// that a client deferring tools by itself (Claude Code) finds the one and
// sends the other up front. Clients that do not know the keys ignore them,
// as the protocol allows.
//
// The hint holds only words the client's search could not match already,
// since it reads the name and description too: the application's aliases
// for the words of the title (stream rm is also stream delete), and any
// word of the title or a tag the description lacks (the tags end the
// description of every command that has any). Left out are words shorter
// than three letters and abbreviations or plurals of a word of the name or
// of another word of the hint (str of stream, acct of account, users of
// user), which a search of whole words gains nothing from. A tool with
// nothing to add carries no hint: on a large CLI the key alone weighs
// kilobytes.
func vendorMeta(t exposure.Tool, title string) mcp.Meta {
	m := mcp.Meta{}
	if hint := searchHint(t, title); hint != "" {
		m[metaSearchHint] = hint
	}
	if exposure.NoDefer(t) {
		m[metaAlwaysLoad] = true
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
