package exposure

import "encoding/json"

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
	// Prepare validates input and turns it into the one prepared call that
	// is approved, logged and run. Validation failures are
	// *schema.ValidationError. Prepare runs nothing.
	Prepare(input json.RawMessage) (*Call, error)
	// MCPExposable reports whether MCP clients may list and call the tool.
	MCPExposable() bool
	// A2AExposable reports whether agent-to-agent surfaces may use the tool.
	A2AExposable() bool
}

// SchemaReader is implemented by tools that can lend their advertised
// schema to a reader that only looks at it, without the copy InputSchema
// makes: encoding a large set's schemas is on the start-up path. read must
// neither modify nor keep the map.
type SchemaReader interface {
	ReadInputSchema(read func(map[string]any))
}

// Confirmable is implemented by every tool that can say whether it needs a
// person's approval. A serving surface refuses a tool that does not implement
// it, before validating anything: "needs no gate" and "cannot report a gate"
// must not look the same. What the person is shown comes from the prepared
// [Call].
type Confirmable interface {
	// NeedsConfirm reports whether a person must approve each call.
	NeedsConfirm() bool
	// ConfirmTrigger names the tag that gated the tool ("" when ungated).
	ConfirmTrigger() string
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

// Deferrable is implemented by tools that can ask to be listed in full even
// where a serving surface defers definitions behind a tool search: a tool
// the model needs at once, without a search first. Listing is not safety:
// a tool that does not implement it is deferred like any other.
type Deferrable interface {
	// NoDefer reports whether the tool must always be listed in full.
	NoDefer() bool
}

// NoDefer reports whether t asks to be listed in full (see Deferrable).
func NoDefer(t Tool) bool {
	d, ok := t.(Deferrable)
	return ok && d.NoDefer()
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

// Applied is implemented by tools that run a command of an application.
// Application is the name the application gives itself in its
// introspection document ("nats"), whatever its binary is called or
// prefixed with: what is known of an application's commands, such as how
// people ask for them (see the catalog package), is known by that name
// and the command's Title.
type Applied interface {
	Application() string
}

// Aliased is implemented by tools that answer to other words than those
// of their title: a command whose application accepts aliases for it or
// for a group above it (stream rm is also stream delete, and stream also
// str). Aliases are not part of what a client is shown; they help a
// search find the tool.
type Aliased interface {
	// Aliases are the other names of each word of the title, outermost
	// first: Aliases()[i] are those of its i-th word, nil for a word
	// without any. It is nil when no word has any. Levels rather than
	// whole alternative paths, because the paths multiply (five names of
	// stream and three of rm make fifteen) and say nothing more. A fresh
	// copy.
	Aliases() [][]string
}

// Example is one example command line an application gives for a tool,
// with the note the application wrote above it.
type Example struct {
	// Note is the comment above the command line, without its "#"
	// markers, one comment a line; "" when there is none.
	Note string
	// Command is the command line as the application wrote it.
	Command string
}

// Exemplified is implemented by tools the application gives examples for:
// the lines of its cheat sheets that run the tool. Like aliases, examples
// are not part of what a client is shown.
type Exemplified interface {
	// Examples are the tool's examples in the order the cheat sheets
	// give them (a fresh copy; nil when there are none).
	Examples() []Example
}

// Grouped is implemented by tools that sit beneath groups of an
// application's commands. A command's own help takes its groups for
// granted ("Reclaim space used by deleted keys" beneath a group whose help
// says it manages a key-value store); their help says what it leaves
// unsaid. Like aliases, it is not part of what a client is shown: it helps
// a search find the tool.
type Grouped interface {
	// GroupHelp is the one-line help of each group above the tool,
	// outermost first: GroupHelp()[i] is that of the group named by the
	// title's i-th word, "" for a group without help. It is nil for a
	// tool beneath no group. A fresh copy.
	GroupHelp() []string
}

// Prefixed is implemented by the tools of an application: Prefix is the
// prefix it is served with (PREFIX=PATH), which begins each of its tools'
// names as "PREFIX_", or "" when it has none. Two applications of one
// binary, or of two binaries of the same name, are told apart by it.
type Prefixed interface {
	Prefix() string
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

// Outcome is what an in-process call produced; a command's record is
// execrunner's Result, which the serving surface gets from running the
// command itself.
type Outcome struct {
	// Output is the JSON the tool produced, passed through to the client.
	Output json.RawMessage
	// Deferred marks an answer that would arrive later. MCP does not defer
	// tools, so the server refuses such an outcome.
	Deferred bool
}
