// Package exposure is the tool model of fisk-mcp: the Tool contract and the
// narrow capability interfaces consumers consult, tag resolution, selection
// filters, names and collisions, and the immutable ToolSet a server publishes.
//
// Kind-specific policy is deliberately not folded into Tool. A consumer that
// needs to know whether a tool is gated asks for Confirmable; one that needs
// MCP annotations asks for BehaviorDescriber. Exposure is the one exception:
// it is part of Tool so that the compiler forces every new kind of tool to
// answer it.
package exposure

import (
	"context"
	"encoding/json"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
)

// Tool is one callable addressed by one flat name, whatever its source.
type Tool interface {
	// Name is the tool's flat, unique name (^[A-Za-z0-9_-]{1,64}$).
	Name() string
	// Description is the human-facing summary.
	Description() string
	// ModelDescription is what the model reads: help, long help and a
	// trailing "Tags: ..." line when the tool has tags.
	ModelDescription() string
	// InputSchema is the advertised JSON Schema; every call returns a fresh
	// copy the caller may keep or modify.
	InputSchema() map[string]any
	// Execute validates input and runs the tool.
	Execute(ctx context.Context, input json.RawMessage, deps ExecDeps) (*Outcome, error)
	// MCPExposable reports whether MCP clients may list and call the tool.
	MCPExposable() bool
	// A2AExposable reports whether agent-to-agent surfaces may use the tool.
	A2AExposable() bool
}

// Confirmable is implemented by every tool that can say whether it needs a
// person's approval. A serving surface refuses a tool that does not implement
// it: "needs no gate" and "cannot report a gate" must not look the same.
type Confirmable interface {
	// NeedsConfirm reports whether a person must approve each call.
	NeedsConfirm() bool
	// ConfirmTrigger names the tag that gated the tool ("" when ungated).
	ConfirmTrigger() string
	// Command validates input and returns the exact argv (binary first)
	// that Execute would run; an in-process tool, which runs no binary,
	// returns its name and its arguments as compact JSON. Validation
	// failures are *schema.ValidationError.
	Command(input json.RawMessage) ([]string, error)
	// TraceLine is the command line for display and logs: quoted and
	// escaped so that nothing in it can spoof a terminal or a prompt. It
	// never fails; invalid input yields the tool name. Redaction of secrets
	// is the serving surface's, which holds the Redactor.
	TraceLine(input json.RawMessage) string
}

// Behavior is the advice a tool gives about its side effects, mapped onto
// MCP tool annotations.
type Behavior struct {
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
}

// ConservativeBehavior is assumed for a tool that does not describe itself.
var ConservativeBehavior = Behavior{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}

// BehaviorDescriber is implemented by tools that know their behaviour.
type BehaviorDescriber interface {
	Behavior() Behavior
}

// BehaviorOf returns t's behaviour, or ConservativeBehavior when t does not
// describe itself.
func BehaviorOf(t Tool) Behavior {
	if d, ok := t.(BehaviorDescriber); ok {
		return d.Behavior()
	}
	return ConservativeBehavior
}

// Sourced is implemented by tools that can say where they come from, for
// listings, titles and collision messages.
type Sourced interface {
	// Source is the application binary's path, or "custom" for a
	// caller-supplied tool.
	Source() string
	// Title is the human title: a command's path joined with spaces (the
	// prefix and the application's name are not part of it), or a custom
	// tool's name.
	Title() string
	// Tags are the tool's tags (a fresh copy). For a command they are its
	// effective tags: those of the groups above it, outermost first, then
	// its own, in declaration order, each once.
	Tags() []string
}

// Kind is the accounting axis of a tool; it appears in every log line.
type Kind string

const (
	KindApplication Kind = "application"
	KindBuiltin     Kind = "builtin"
	KindRemote      Kind = "remote"
	KindCustom      Kind = "custom"
	KindMCP         Kind = "mcp"
	KindUnknown     Kind = "unknown"
)

// Presentation is the visibility axis: how a tool's work is shown.
type Presentation string

const (
	PresentationCommand      Presentation = "command"
	PresentationRemote       Presentation = "remote"
	PresentationSelfRendered Presentation = "self-rendered"
	PresentationTraced       Presentation = "traced"
)

// Describer is implemented by tools that know their kind and presentation.
type Describer interface {
	Kind() Kind
	Presentation() Presentation
}

// KindOf returns t's kind, or KindUnknown.
func KindOf(t Tool) Kind {
	if d, ok := t.(Describer); ok {
		return d.Kind()
	}
	return KindUnknown
}

// ExecDeps is what a tool needs from the serving surface to run. Passing
// functions in keeps exposure below the server.
type ExecDeps struct {
	// Run runs one command. The server supplies it with its timeout,
	// environment, redaction and progress reporting already bound.
	Run func(ctx context.Context, c execrunner.Command) (*execrunner.Result, error)
}

// Outcome is what a tool produced. The presence of Exec is the whole
// discriminator: a command's output is wrapped by the server in a
// CommandResult envelope, while an in-process tool's Output is passed through
// as the JSON it produced.
type Outcome struct {
	// Output is the JSON an in-process tool produced (nil for commands).
	Output json.RawMessage
	// Exec is the record of the command that ran, for command tools.
	Exec *execrunner.Result
	// Deferred marks an answer that would arrive later. MCP does not defer
	// tools, so the server refuses such an outcome.
	Deferred bool
}
