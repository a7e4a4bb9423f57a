package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The discovery tools' names, in the order tools/list gives them.
const (
	SearchTools      = "search_tools"
	DescribeTools    = "describe_tools"
	CallReadOnlyTool = "call_read_only_tool"
	CallTool         = "call_tool"
)

// maxSearchLimit and maxDescribe bound what one discovery call returns.
const (
	maxSearchLimit = 50
	maxDescribe    = 20
)

// Names are the discovery tools' names, in the order tools/list gives
// them.
func Names() []string { return []string{SearchTools, DescribeTools, CallReadOnlyTool, CallTool} }

// Is reports whether name is a discovery tool's.
func Is(name string) bool { return slices.Contains(Names(), name) }

// Descriptors are the discovery tools' descriptors for set, in the order
// tools/list gives them. They depend on nothing but the set (search_tools
// says what it serves, see servedSummary), so a deferred list is the same
// for every session and transport, and for every reload that keeps the
// set's applications, groups and ai:no_defer tools.
func Descriptors(set *exposure.ToolSet) []*mcp.Tool {
	return []*mcp.Tool{searchToolsDescriptor(set, nil), describeToolsDescriptor, readOnlyExecutor.descriptor, anyExecutor.descriptor}
}

// Outcome is how a call the discovery tools answer themselves ended, for
// the server's record of it.
type Outcome int

const (
	// OK: the call was answered.
	OK Outcome = iota
	// InvalidArguments: the arguments could not be read; nothing was
	// searched, described or run.
	InvalidArguments
	// UnknownTools: describe_tools was given no name of a served tool.
	UnknownTools
	// Failed: the answer could not be written.
	Failed
)

// Config is what the discovery tools need of the server that serves them.
// Every field is required.
type Config struct {
	// InForce returns the set in force: the one searched, described and
	// kept an index of.
	InForce func() *exposure.ToolSet
	// Visible returns which tools the caller of req may see (nil: all):
	// a search finds, describe_tools describes and "did you mean"
	// suggests no other. Nil means every caller sees every tool.
	Visible func(req *mcp.CallToolRequest) func(exposure.Tool) bool
	// Requests are the requests people make of the applications, which
	// the search index matches too (see catalog.FromToolSet).
	Requests catalog.Requests
	// Describe returns t's descriptor as a full tools/list gives it, and
	// that descriptor's annotations in the server's encoding: what
	// describe_tools returns of t.
	Describe func(t exposure.Tool) (*mcp.Tool, json.Marshaler)
	// Run runs the served tool name with args as a direct call of it runs,
	// through the same lookup, validation, gate, slot, run, result and
	// record, the record naming the real tool and via; before anything of
	// the call is validated it refuses a tool via refuses (see
	// Executor.Check). An executor hands its call to Run once its own
	// arguments are read.
	Run func(ctx context.Context, req *mcp.CallToolRequest, name string, args json.RawMessage, via *Executor) (*mcp.CallToolResult, error)
	// Record begins the record of a call the discovery tools answer
	// themselves (a search, a description, an executor's arguments that
	// cannot be read) and returns the function that completes it with the
	// call's outcome and the error behind it, if any.
	Record func(ctx context.Context, req *mcp.CallToolRequest) (done func(Outcome, error))
	// Log receives, at debug, the keys Arguments removes from a call.
	Log *slog.Logger
}

// Tools are the discovery tools of one server: their handlers, and the
// search index of the set in force.
type Tools struct {
	cfg  Config
	kept atomic.Pointer[view]
}

// New returns the discovery tools of the server cfg describes.
func New(cfg Config) *Tools { return &Tools{cfg: cfg} }

// Handler is the handler of the discovery tool called name, nil when name
// is no discovery tool's. search_tools and describe_tools answer from the
// set in force; an executor reads its arguments and hands the call to
// Config.Run.
func (d *Tools) Handler(name string) mcp.ToolHandler {
	switch name {
	case SearchTools:
		return d.answer(d.search)
	case DescribeTools:
		return d.answer(d.describe)
	case CallReadOnlyTool:
		return d.execute(readOnlyExecutor)
	case CallTool:
		return d.execute(anyExecutor)
	}
	return nil
}

// answer is the handler of a discovery tool that answers by itself: one
// tools/call like any other, with one record.
func (d *Tools) answer(f func(visible func(exposure.Tool) bool, raw json.RawMessage) (*mcp.CallToolResult, Outcome, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		done := d.cfg.Record(ctx, req)
		var visible func(exposure.Tool) bool
		if d.cfg.Visible != nil {
			visible = d.cfg.Visible(req)
		}
		res, outcome, err := f(visible, Arguments(d.cfg.Log, req, nil))
		done(outcome, err)
		return res, nil
	}
}

// alwaysLoad is the _meta of a tool a client that defers tools by itself
// must send to the model up front.
func alwaysLoad() mcp.Meta { return mcp.Meta{MetaAlwaysLoad: true} }

// readOnlyClosedWorld are the annotations of search_tools and
// describe_tools: they read the server's own tool set and nothing else.
// Like a served tool's descriptor, they say each thing once: the title is
// the tool's own, and a read-only tool sends no destructiveHint.
func readOnlyClosedWorld() *mcp.ToolAnnotations {
	closed := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
}

// SearchDescriptor is search_tools's descriptor for a caller who sees
// only the tools of set visible reports: its description counts those.
func SearchDescriptor(set *exposure.ToolSet, visible func(exposure.Tool) bool) *mcp.Tool {
	return searchToolsDescriptor(set, visible)
}

// searchToolsDescriptor is search_tools's descriptor for set: its
// description ends with what the set serves, of the tools visible reports
// (all, for nil).
func searchToolsDescriptor(set *exposure.ToolSet, visible func(exposure.Tool) bool) *mcp.Tool {
	desc := "Find this server's tools by what you want to do. Most of its tools are not listed, to save context: " +
		"search in plain words (\"delete a stream\", \"list users\"), pick a name from the result, read its arguments with " +
		"describe_tools, and run it with call_read_only_tool (read-only tools) or call_tool (any tool)."
	if summary := servedSummary(set, visible); summary != "" {
		desc += " " + summary
	}
	return &mcp.Tool{
		Name:        SearchTools,
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

// describeToolsDescriptor is describe_tools's descriptor, the same for
// every set.
var describeToolsDescriptor = &mcp.Tool{
	Name:  DescribeTools,
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

// decodeArguments decodes a discovery tool's arguments into v, refusing
// unknown fields, so a misspelt argument is an error rather than ignored.
func decodeArguments(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		// The decoder's message repeats what it could not take (an
		// unknown field's name), however long.
		if msg, cut := echo.Clip(err.Error(), 2*echo.Max); cut {
			return errors.New(msg + "…")
		}
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the arguments object")
	}
	return nil
}

// search answers search_tools: the served tools of the set in force that
// match the query and the caller may see, best first.
func (d *Tools) search(visible func(exposure.Tool) bool, raw json.RawMessage) (*mcp.CallToolResult, Outcome, error) {
	var in struct {
		Query *string `json:"query"`
		Limit *int    `json:"limit"`
	}
	err := decodeArguments(raw, &in)
	switch {
	case err != nil:
	case in.Query == nil || strings.TrimSpace(*in.Query) == "":
		err = errors.New("query is required: say in a few words what you want to do")
	case in.Limit != nil && (*in.Limit < 1 || *in.Limit > maxSearchLimit):
		err = fmt.Errorf("limit %d: give a number from 1 to %d", *in.Limit, maxSearchLimit)
	}
	if err != nil {
		return errorResult("nothing searched: %v\nCall search_tools with {\"query\": \"what you want to do\"}.", err), InvalidArguments, err
	}
	limit := catalog.DefaultLimit
	if in.Limit != nil {
		limit = *in.Limit
	}
	set := d.cfg.InForce()
	hits := d.Index(set).Search(*in.Query, limit)
	if visible != nil {
		// Ranked over the whole set, then the caller's kept: its best
		// limit, however few of the set's best it may see.
		hits = slices.DeleteFunc(d.Index(set).Search(*in.Query, len(set.Tools())), func(h catalog.Hit) bool {
			t, ok := set.Lookup(h.Name)
			return !ok || !visible(t)
		})
		hits = hits[:min(len(hits), limit)]
	}
	var b strings.Builder
	if len(hits) == 0 {
		fmt.Fprintf(&b, "No tool matches %s. Try other words: the action and the thing it acts on (\"list streams\", \"remove user\").", echo.Quoted(*in.Query))
		return textResult(b.String()), OK, nil
	}
	fmt.Fprintf(&b, "Tools for %s, best first. Run a read-only one with call_read_only_tool, any with call_tool; describe_tools gives their arguments.\n", echo.Quoted(*in.Query))
	for _, h := range hits {
		t, ok := set.Lookup(h.Name)
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "- %s: %s (%s)\n", h.Name, firstLine(t.Description()), behaviourWords(t))
	}
	return textResult(b.String()), OK, nil
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
	if cut, more := echo.Clip(line, maxResultLine); more {
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
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description"`
	InputSchema any            `json:"inputSchema"`
	Annotations json.Marshaler `json:"annotations,omitempty"`
	Gated       bool           `json:"gated"`
	CallWith    string         `json:"call_with"`
}

type unknownName struct {
	Name       string   `json:"name"`
	DidYouMean []string `json:"did_you_mean,omitempty"`
}

// describe answers describe_tools: the definitions of the served tools
// named that the caller may see, and the closest such names to each other
// name.
func (d *Tools) describe(visible func(exposure.Tool) bool, raw json.RawMessage) (*mcp.CallToolResult, Outcome, error) {
	var in struct {
		Names []string `json:"names"`
	}
	err := decodeArguments(raw, &in)
	switch {
	case err != nil:
	case len(in.Names) == 0:
		err = errors.New("names is required: give the tool names search_tools returned")
	case len(in.Names) > maxDescribe:
		err = fmt.Errorf("%d names: describe at most %d at a time", len(in.Names), maxDescribe)
	}
	if err != nil {
		return errorResult("nothing described: %v\nCall describe_tools with {\"names\": [\"tool_name\"]}.", err), InvalidArguments, err
	}
	set := d.cfg.InForce()
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
		if !ok || !t.MCPExposable() || (visible != nil && !visible(t)) {
			out.Unknown = append(out.Unknown, unknownName{Name: echo.InJSON(name), DidYouMean: d.Closest(set, name, 3, visible)})
			continue
		}
		desc, annotations := d.cfg.Describe(t)
		out.Tools = append(out.Tools, definition{
			Name: desc.Name, Title: desc.Title, Description: desc.Description, InputSchema: desc.InputSchema,
			Annotations: annotations, Gated: gated(t), CallWith: executorFor(t).name,
		})
	}
	data, err := json.Marshal(out)
	if err != nil {
		return errorResult("describing the tools failed: %v", err), Failed, err
	}
	res, outcome := textResult(string(data)), OK
	if len(out.Tools) == 0 {
		res.IsError, outcome = true, UnknownTools
	}
	return res, outcome, nil
}

// textResult is a result with one text block.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// errorResult is an isError result with one text block.
func errorResult(format string, args ...any) *mcp.CallToolResult {
	res := textResult(fmt.Sprintf(format, args...))
	res.IsError = true
	return res
}
