package exposure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fisk-mcp/fisk-mcp/schema"
)

// SourceCustom is the Source of every caller-supplied tool.
const SourceCustom = "custom"

// Exposure declares where a caller-supplied tool may be used.
type Exposure struct {
	MCP, A2A bool
}

// CustomSpec describes a caller-supplied Go tool.
type CustomSpec struct {
	// Name is the flat tool name (^[A-Za-z0-9_-]{1,64}$).
	Name string
	// Description is shown to people and to the model.
	Description string
	// InputSchema is the JSON Schema of the arguments; its root must be an
	// object. It is compiled once, and every call is validated against it
	// before Fn runs.
	InputSchema map[string]any
	// Fn does the work. input has been validated; the JSON it returns is
	// passed through to the client as the tool's output.
	Fn func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)
	// Kind is KindCustom (the default when empty), KindBuiltin, KindRemote
	// or KindMCP.
	Kind Kind
	// Presentation defaults to PresentationRemote for remote and MCP-backed
	// tools and PresentationSelfRendered otherwise.
	Presentation Presentation
	// Behavior is the tool's advice; nil means ConservativeBehavior.
	Behavior *Behavior
	// Confirm gates every call behind a person's approval.
	Confirm bool
	// ConfirmTrigger is what the person is told gated the call; it defaults
	// to ai:confirm and may only be set on a gated tool.
	ConfirmTrigger string
	// Exposure restricts where the tool may be used; nil means everywhere.
	Exposure *Exposure
}

// Errors returned by NewCustomTool for combinations the tool model forbids.
var (
	// ErrGatedRemote: approval is asked by this server before it runs a
	// command; a remote or MCP-backed tool runs elsewhere, where that
	// promise cannot be kept, so it may not declare a gate.
	ErrGatedRemote = errors.New("a remote or MCP-backed tool may not declare a confirm gate")
	// ErrExposureRestricted: a tool that narrows its exposure must be one
	// this server fully controls: in-process and ungated.
	ErrExposureRestricted = errors.New("a tool that declares its exposure may not be remote, MCP-backed or gated")
)

// customTool is a caller-supplied Go tool.
type customTool struct {
	spec      CustomSpec
	behavior  Behavior
	exposure  Exposure
	trigger   string
	presents  Presentation
	validator *inputValidator
}

var (
	_ Tool              = (*customTool)(nil)
	_ Confirmable       = (*customTool)(nil)
	_ BehaviorDescriber = (*customTool)(nil)
	_ Describer         = (*customTool)(nil)
	_ Sourced           = (*customTool)(nil)
)

// NewCustomTool builds a caller-supplied tool. It validates the descriptor
// (name, description, object schema), compiles the schema so that every
// call is validated, and enforces the gate and exposure rules: a remote or
// MCP-backed tool may not be gated (ErrGatedRemote); a tool that declares
// Exposure may not be remote, MCP-backed or gated (ErrExposureRestricted).
func NewCustomTool(spec CustomSpec) (Tool, error) {
	if spec.Kind == "" {
		spec.Kind = KindCustom
	}
	switch spec.Kind {
	case KindCustom, KindBuiltin, KindRemote, KindMCP:
	default:
		return nil, fmt.Errorf("custom tool %q: kind %q is not one of custom, builtin, remote, mcp", spec.Name, spec.Kind)
	}
	remote := spec.Kind == KindRemote || spec.Kind == KindMCP
	if remote && spec.Confirm {
		return nil, fmt.Errorf("custom tool %q: %w", spec.Name, ErrGatedRemote)
	}
	if spec.Exposure != nil && (remote || spec.Confirm) {
		return nil, fmt.Errorf("custom tool %q: %w", spec.Name, ErrExposureRestricted)
	}
	if !spec.Confirm && spec.ConfirmTrigger != "" {
		return nil, fmt.Errorf("custom tool %q: confirm trigger %q set on an ungated tool; set Confirm too", spec.Name, spec.ConfirmTrigger)
	}
	if spec.Fn == nil {
		return nil, fmt.Errorf("custom tool %q: no function", spec.Name)
	}
	if err := schema.ValidateDescriptor(spec.Name, spec.Description, spec.InputSchema); err != nil {
		return nil, fmt.Errorf("custom tool %q: %w", spec.Name, err)
	}
	v, err := compileInputSchema(spec.Name, spec.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("custom tool %q: %w", spec.Name, err)
	}
	t := &customTool{spec: spec, behavior: ConservativeBehavior, exposure: Exposure{MCP: true, A2A: true}, validator: v}
	t.spec.InputSchema = nil // the caller keeps its map; the canonical copy is ours
	if spec.Behavior != nil {
		t.behavior = *spec.Behavior
	}
	if spec.Exposure != nil {
		t.exposure = *spec.Exposure
	}
	if spec.Confirm {
		t.trigger = spec.ConfirmTrigger
		if t.trigger == "" {
			t.trigger = TagConfirm
		}
	}
	t.presents = spec.Presentation
	if t.presents == "" {
		t.presents = PresentationSelfRendered
		if remote {
			t.presents = PresentationRemote
		}
	}
	return t, nil
}

func (t *customTool) Name() string                { return t.spec.Name }
func (t *customTool) Description() string         { return t.spec.Description }
func (t *customTool) ModelDescription() string    { return t.spec.Description }
func (t *customTool) InputSchema() map[string]any { return t.validator.schema() }
func (t *customTool) MCPExposable() bool          { return t.exposure.MCP }
func (t *customTool) A2AExposable() bool          { return t.exposure.A2A }

func (t *customTool) Behavior() Behavior         { return t.behavior }
func (t *customTool) Kind() Kind                 { return t.spec.Kind }
func (t *customTool) Presentation() Presentation { return t.presents }

func (t *customTool) Source() string { return SourceCustom }
func (t *customTool) Title() string  { return t.spec.Name }
func (t *customTool) Tags() []string { return nil }

func (t *customTool) NeedsConfirm() bool     { return t.trigger != "" }
func (t *customTool) ConfirmTrigger() string { return t.trigger }

// Prepare validates input once. The call's argv is the tool's name
// followed by its arguments in canonical compact JSON: an in-process tool
// has no argv, and this is what a person approving the call is shown.
// Running it calls Fn and passes its JSON through unchanged; output that is
// not JSON is an error, never a malformed result.
func (t *customTool) Prepare(input json.RawMessage) (*Call, error) {
	canon, err := t.validator.validate(input)
	if err != nil {
		return nil, err
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	run := func(ctx context.Context) (*Outcome, error) {
		out, err := t.spec.Fn(ctx, input)
		if err != nil {
			return nil, err
		}
		if !json.Valid(out) {
			return nil, fmt.Errorf("custom tool %q produced output that is not JSON", t.spec.Name)
		}
		return &Outcome{Output: out}, nil
	}
	return &Call{argv: []string{t.spec.Name, string(canon)}, arguments: input, run: run}, nil
}
