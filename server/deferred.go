package server

import (
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
	msg := "unknown tool " + echoed(name)
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
