package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The discovery tools of a deferred set, in the order tools/list gives
// them. Their descriptors depend on nothing but the set (search_tools says
// what it serves, see servedSummary), so the deferred list is the same for
// every session and transport, and for every reload that keeps the set's
// applications, groups and ai:no_defer tools.
const (
	searchToolsName   = "search_tools"
	describeToolsName = "describe_tools"
)

// maxSearchLimit and maxDescribe bound what one discovery call returns.
const (
	maxSearchLimit = 50
	maxDescribe    = 20
)

type discoveryTool struct {
	name string
	// descriptor is the tool's descriptor for a set; it depends on
	// nothing else.
	descriptor func(set *exposure.ToolSet) *mcp.Tool
	handler    func(s *Server) mcp.ToolHandler
}

var discoveryTools = []discoveryTool{
	{searchToolsName, searchToolsDescriptor, func(s *Server) mcp.ToolHandler { return s.searchTools }},
	{describeToolsName, fixed(describeToolsDescriptor()), func(s *Server) mcp.ToolHandler { return s.describeTools }},
	{readOnlyExecutor.name, fixed(readOnlyExecutor.descriptor()), readOnlyExecutor.handler},
	{anyExecutor.name, fixed(anyExecutor.descriptor()), anyExecutor.handler},
}

// fixed is the descriptor of a discovery tool that is the same for every
// set.
func fixed(d *mcp.Tool) func(*exposure.ToolSet) *mcp.Tool {
	return func(*exposure.ToolSet) *mcp.Tool { return d }
}

func isDiscovery(name string) bool {
	return slices.ContainsFunc(discoveryTools, func(d discoveryTool) bool { return d.name == name })
}

// alwaysLoad is the _meta of a tool a client that defers tools by itself
// must send to the model up front.
func alwaysLoad() mcp.Meta { return mcp.Meta{metaAlwaysLoad: true} }

// readOnlyClosedWorld are the annotations of search_tools and
// describe_tools: they read the server's own tool set and nothing else.
// Like every descriptor's, they say each thing once (see descriptor): the
// title is the tool's own, and a read-only tool sends no destructiveHint.
func readOnlyClosedWorld() *mcp.ToolAnnotations {
	closed := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
}

// searchToolsDescriptor is search_tools's descriptor for set: its
// description ends with what the set serves.
func searchToolsDescriptor(set *exposure.ToolSet) *mcp.Tool {
	desc := "Find this server's tools by what you want to do. Most of its tools are not listed, to save context: " +
		"search in plain words (\"delete a stream\", \"list users\"), pick a name from the result, read its arguments with " +
		"describe_tools, and run it with call_read_only_tool (read-only tools) or call_tool (any tool)."
	if summary := servedSummary(set); summary != "" {
		desc += " " + summary
	}
	return &mcp.Tool{
		Name:        searchToolsName,
		Title:       "Search tools",
		Description: desc,
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"query": map[string]any{"type": "string", "description": "What you want to do, in a few words; the application's own words match best (a group named in this tool's description, a command)."},
				"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": maxSearchLimit, "description": fmt.Sprintf("Most tools to return (default %d).", catalog.DefaultLimit)},
			},
			"required":             []any{"query"},
			"additionalProperties": false,
		},
		Annotations: readOnlyClosedWorld(),
		Meta:        alwaysLoad(),
	}
}

func describeToolsDescriptor() *mcp.Tool {
	return &mcp.Tool{
		Name:  describeToolsName,
		Title: "Describe tools",
		Description: "Return the full definitions of tools named by search_tools: description, input schema (the arguments " +
			"to pass in call_read_only_tool or call_tool), behaviour, whether a person must approve, and which executor runs it.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"names": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1, "maxItems": maxDescribe, "description": "Tool names, as search_tools gives them."},
			},
			"required":             []any{"names"},
			"additionalProperties": false,
		},
		Annotations: readOnlyClosedWorld(),
		Meta:        alwaysLoad(),
	}
}

// catalogView is the search index of one published set, built on first
// use: a set that is never searched and never called by a wrong name
// costs nothing.
type catalogView struct {
	set   *exposure.ToolSet
	once  sync.Once
	index *catalog.Index
}

// indexOf returns the index of set's served tools. Only the tools MCP
// clients may call are in it, so a denied, excluded, hidden or agent-only
// tool is never found, described or suggested. The index kept is the set
// in force's: a call still running on a set a reload replaced builds that
// set's index for itself, rather than evict the one prepared for the set
// in force (see readySet).
func (s *Server) indexOf(set *exposure.ToolSet) *catalog.Index {
	v := s.catalog.Load()
	if v == nil || v.set != set {
		fresh := &catalogView{set: set}
		if set != s.tools.Load() {
			v = fresh
		} else if s.catalog.CompareAndSwap(v, fresh) {
			v = fresh
		} else if v = s.catalog.Load(); v == nil || v.set != set {
			v = fresh // another set won meanwhile; this call still uses its own
		}
	}
	v.once.Do(func() {
		var entries []catalog.Entry
		for _, e := range catalog.FromToolSet(set, gated, s.cfg.SearchRequests) {
			if t, ok := set.Lookup(e.Name); ok && t.MCPExposable() {
				entries = append(entries, e)
			}
		}
		v.index = catalog.New(entries)
	})
	return v.index
}

// gated reports whether t needs a person's approval; a tool that cannot
// say is shown as gated, since it will not run without one.
func gated(t exposure.Tool) bool {
	c, ok := t.(exposure.Confirmable)
	return !ok || c.NeedsConfirm()
}

// discoveryCall starts the record of a discovery tool's call: it is one
// tools/call like any other and writes one line. done must be deferred.
func (s *Server) discoveryCall(ctx context.Context, req *mcp.CallToolRequest) (rec *callRecord, done func()) {
	st := requestOf(ctx)
	done = func() {}
	if st == nil {
		st = newCallState(req)
		done = func() { s.logCall(ctx, st.rec) }
	}
	st.handled = true
	st.rec.kind, st.rec.decision = exposure.KindBuiltin, decisionUngated
	if raw := arguments(req); json.Valid(raw) {
		var compact bytes.Buffer
		_ = json.Compact(&compact, raw)
		st.rec.argv = s.cfg.Redactor.Redact(st.rec.tool + " " + compact.String())
	}
	return st.rec, done
}

// decodeArguments decodes a discovery tool's arguments into v, refusing
// unknown fields, so a misspelt argument is an error rather than ignored.
func decodeArguments(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		// The decoder's message repeats what it could not take (an
		// unknown field's name), however long.
		if msg, cut := clipped(err.Error(), 2*maxEchoed); cut {
			return errors.New(msg + "…")
		}
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the arguments object")
	}
	return nil
}

func (s *Server) searchTools(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	rec, done := s.discoveryCall(ctx, req)
	defer done()
	var in struct {
		Query *string `json:"query"`
		Limit *int    `json:"limit"`
	}
	err := decodeArguments(arguments(req), &in)
	switch {
	case err != nil:
	case in.Query == nil || strings.TrimSpace(*in.Query) == "":
		err = errors.New("query is required: say in a few words what you want to do")
	case in.Limit != nil && (*in.Limit < 1 || *in.Limit > maxSearchLimit):
		err = fmt.Errorf("limit %d: give a number from 1 to %d", *in.Limit, maxSearchLimit)
	}
	if err != nil {
		rec.result, rec.err = ResultInvalidArguments, err
		return errorResult("nothing searched: %v\nCall search_tools with {\"query\": \"what you want to do\"}.", err), nil
	}
	limit := catalog.DefaultLimit
	if in.Limit != nil {
		limit = *in.Limit
	}
	set := s.tools.Load()
	hits := s.indexOf(set).Search(*in.Query, limit)
	rec.result = ResultOK
	var b strings.Builder
	if len(hits) == 0 {
		fmt.Fprintf(&b, "No tool matches %s. Try other words: the action and the thing it acts on (\"list streams\", \"remove user\").", echoed(*in.Query))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil
	}
	fmt.Fprintf(&b, "Tools for %s, best first. Run a read-only one with call_read_only_tool, any with call_tool; describe_tools gives their arguments.\n", echoed(*in.Query))
	for _, h := range hits {
		t, ok := set.Lookup(h.Name)
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "- %s: %s (%s)\n", h.Name, firstLine(t.Description()), behaviourWords(t))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil
}

// behaviourWords says in a few words what a tool does to the world and
// whether a person must approve it.
func behaviourWords(t exposure.Tool) string {
	b := exposure.BehaviorOf(t)
	words := "writes"
	switch {
	case b.ReadOnly:
		words = "read-only"
	case b.Destructive:
		words = "destructive"
	}
	if gated(t) {
		words += ", needs a person's approval"
	}
	return words
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if cut, more := clipped(line, maxResultLine); more {
		return cut + "…"
	}
	return line
}

// maxResultLine bounds the line of a tool's description that a search
// result shows: an application may put a paragraph on its first line, and
// a result lists up to 50 tools.
const maxResultLine = 300

// definition is a tool as describe_tools returns it: the descriptor a full
// tools/list would give, plus how to run it.
type definition struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description"`
	InputSchema any              `json:"inputSchema"`
	Annotations *wireAnnotations `json:"annotations,omitempty"`
	Gated       bool             `json:"gated"`
	CallWith    string           `json:"call_with"`
}

type unknownName struct {
	Name       string   `json:"name"`
	DidYouMean []string `json:"did_you_mean,omitempty"`
}

func (s *Server) describeTools(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	rec, done := s.discoveryCall(ctx, req)
	defer done()
	var in struct {
		Names []string `json:"names"`
	}
	err := decodeArguments(arguments(req), &in)
	switch {
	case err != nil:
	case len(in.Names) == 0:
		err = errors.New("names is required: give the tool names search_tools returned")
	case len(in.Names) > maxDescribe:
		err = fmt.Errorf("%d names: describe at most %d at a time", len(in.Names), maxDescribe)
	}
	if err != nil {
		rec.result, rec.err = ResultInvalidArguments, err
		return errorResult("nothing described: %v\nCall describe_tools with {\"names\": [\"tool_name\"]}.", err), nil
	}
	set := s.tools.Load()
	var out struct {
		Tools   []definition  `json:"tools"`
		Unknown []unknownName `json:"unknown,omitempty"`
	}
	out.Tools = []definition{}
	seen := map[string]bool{}
	for _, name := range in.Names {
		if seen[name] {
			continue
		}
		seen[name] = true
		t, ok := set.Lookup(name)
		if !ok || !t.MCPExposable() {
			out.Unknown = append(out.Unknown, unknownName{Name: echo.InJSON(name), DidYouMean: s.indexOf(set).Closest(name, 3)})
			continue
		}
		d := descriptor(t, s.cfg.OutputSchema)
		out.Tools = append(out.Tools, definition{
			Name: d.Name, Title: d.Title, Description: d.Description, InputSchema: d.InputSchema,
			Annotations: (*wireAnnotations)(d.Annotations), Gated: gated(t), CallWith: executorFor(t).name,
		})
	}
	data, err := json.Marshal(out)
	if err != nil {
		rec.result, rec.err = ResultError, err
		return errorResult("describing the tools failed: %v", err), nil
	}
	rec.result = ResultOK
	if len(out.Tools) == 0 {
		rec.result = ResultUnknownTool
	}
	return &mcp.CallToolResult{IsError: len(out.Tools) == 0, Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
}
