package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Executor is a discovery tool that runs a served tool named in its
// arguments, through exactly the path of a direct call (see Config.Run):
// the same lookup, validation, gate, slot, run, result and log line, which
// names the real tool and its kind and says which executor carried it.
//
// There are two, so that the client keeps the distinction it uses to
// auto-approve: one meta-tool able to run anything would have to be
// annotated destructive, and every read-only hint would be lost.
// call_read_only_tool is annotated read-only and idempotent and refuses,
// before anything is validated or run, a tool that is not read-only;
// call_tool runs any tool and is annotated as conservatively as the tool
// model's defaults.
type Executor struct {
	name       string
	readOnly   bool
	descriptor *mcp.Tool
}

var (
	readOnlyExecutor = newExecutor(CallReadOnlyTool, true)
	anyExecutor      = newExecutor(CallTool, false)
)

func newExecutor(name string, readOnly bool) *Executor {
	e := &Executor{name: name, readOnly: readOnly}
	e.descriptor = e.describe()
	return e
}

// Name is the executor's tool name.
func (e *Executor) Name() string { return e.name }

// executorFor is the executor a model should run t with.
func executorFor(t exposure.Tool) *Executor {
	if exposure.BehaviorOf(t).ReadOnly {
		return readOnlyExecutor
	}
	return anyExecutor
}

// describe is e's descriptor, the same for every set.
func (e *Executor) describe() *mcp.Tool {
	b := exposure.ConservativeBehavior
	title, what := "Call a tool", "Run any tool of this server (found with search_tools), read-only or not."
	if e.readOnly {
		b = exposure.Behavior{ReadOnly: true, Idempotent: true, OpenWorld: true}
		title, what = "Call a read-only tool", "Run a read-only tool of this server (found with search_tools); it refuses any other, which call_tool runs."
	}
	return &mcp.Tool{
		Name:  e.name,
		Title: title,
		Description: what + " Give the tool's name and its arguments exactly as its input schema (describe_tools) says; " +
			"the call is validated, approved when the tool needs it, and its result returned as if the tool were called directly.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":      map[string]any{"type": "string", "description": "The tool to run."},
				"arguments": map[string]any{"type": "object", "description": "The tool's arguments, as its input schema says."},
			},
			"required":             []any{"name"},
			"additionalProperties": false,
		},
		Annotations: e.annotations(b),
		Meta:        alwaysLoad(),
	}
}

// annotations say b once, as a command tool's descriptor does: no
// annotations.title (the tool's title is its own), and no destructiveHint
// on the read-only executor, where the protocol gives it no meaning.
// call_tool states destructive and open-world outright: they are the
// protocol's defaults, but some clients read an absent hint as false.
func (e *Executor) annotations(b exposure.Behavior) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{ReadOnlyHint: b.ReadOnly, IdempotentHint: b.Idempotent, OpenWorldHint: &b.OpenWorld}
	if !b.ReadOnly {
		a.DestructiveHint = &b.Destructive
	}
	return a
}

// execute is e's handler: it reads e's arguments and hands the call to
// Config.Run, or answers, with nothing run, that they cannot be read.
func (d *Tools) execute(e *Executor) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name, args, err := executorArguments(Arguments(d.cfg.Log, req, nil))
		if err != nil {
			d.cfg.Record(ctx, req)(InvalidArguments, err)
			return errorResult("nothing ran: %v\nCall %s with {\"name\": \"tool_name\", \"arguments\": {...}}.", err, e.name), nil
		}
		return d.cfg.Run(ctx, req, name, args, e)
	}
}

// Check is e's refusal to run t, or nil: the read-only executor refuses a
// tool that is not read-only, and the other executor, like a direct call
// (a nil Executor), refuses nothing. It is checked before the call is
// validated: nothing of a refused call is looked at, let alone run.
func (e *Executor) Check(t exposure.Tool) error {
	if e == nil || !e.readOnly || exposure.BehaviorOf(t).ReadOnly {
		return nil
	}
	return fmt.Errorf("%q is not read-only, and %s runs only read-only tools; call it with %s", t.Name(), e.name, anyExecutor.name)
}

// executorArguments reads an executor's arguments: the tool's name and its
// own arguments, absent or null meaning none. Unknown and repeated keys are
// refused: with two "name" keys a client could show one tool and the
// server run another.
func executorArguments(raw json.RawMessage) (name string, args json.RawMessage, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", nil, errors.New("the arguments must be a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", nil, err
		}
		key, _ := tok.(string)
		if seen[key] {
			return "", nil, fmt.Errorf("%s is given twice", echo.Quoted(key))
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", nil, err
		}
		switch key {
		case "name":
			if err := json.Unmarshal(v, &name); err != nil {
				return "", nil, errors.New("name must be a string")
			}
		case "arguments":
			args = v
		default:
			return "", nil, fmt.Errorf("unknown argument %s (only name and arguments)", echo.Quoted(key))
		}
	}
	if name == "" {
		return "", nil, errors.New("name is required: the tool to run, as search_tools gives it")
	}
	if t := bytes.TrimSpace(args); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		args = json.RawMessage("{}")
	}
	return name, args, nil
}
