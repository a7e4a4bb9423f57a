package exposure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// commandTool is one leaf command of a fisk application. It is immutable once
// built; every accessor that returns a slice or map returns a copy.
type commandTool struct {
	name        string
	title       string // command path with spaces
	source      string // application binary path
	binary      string
	tags        []string
	description string
	modelDesc   string
	behavior    Behavior
	trigger     string // "" when ungated
	cmd         *schema.Command
	inputs      commandSchemaInputs
}

// commandSchemaInputs determine a command's advertised schema: the mode,
// the precomputed schema of that mode and the exposed globals. The schema is
// shared with the model and only read.
type commandSchemaInputs struct {
	mode    schema.Mode
	source  map[string]any
	globals fingerprint // of the app's exposed global flags
}

func (t *commandTool) writeSchemaInputs(w *canonicalWriter) {
	w.field("mode", string(t.inputs.mode))
	w.label("globals")
	w.raw(t.inputs.globals[:])
	w.label("command")
	w.value(t.inputs.source)
}

var (
	_ Tool              = (*commandTool)(nil)
	_ Confirmable       = (*commandTool)(nil)
	_ BehaviorDescriber = (*commandTool)(nil)
	_ Describer         = (*commandTool)(nil)
	_ Sourced           = (*commandTool)(nil)
)

// describeCommand returns the human description and the model description
// of a command. An empty help is replaced by one derived from the command
// path (schema.DescriptionFor), so no tool is advertised without words.
func describeCommand(path []string, help, helpLong string, tags []string) (description, model string) {
	description = schema.DescriptionFor(path, help)
	parts := []string{description}
	if l := strings.TrimSpace(helpLong); l != "" {
		parts = append(parts, l)
	}
	if len(tags) > 0 {
		parts = append(parts, "Tags: "+strings.Join(tags, ", "))
	}
	return description, strings.Join(parts, "\n\n")
}

func (t *commandTool) Name() string                { return t.name }
func (t *commandTool) Description() string         { return t.description }
func (t *commandTool) ModelDescription() string    { return t.modelDesc }
func (t *commandTool) InputSchema() map[string]any { return t.cmd.InputSchema() }
func (t *commandTool) MCPExposable() bool          { return true }
func (t *commandTool) A2AExposable() bool          { return true }

func (t *commandTool) Behavior() Behavior         { return t.behavior }
func (t *commandTool) Kind() Kind                 { return KindApplication }
func (t *commandTool) Presentation() Presentation { return PresentationCommand }

func (t *commandTool) Source() string { return t.source }
func (t *commandTool) Title() string  { return t.title }
func (t *commandTool) Tags() []string { return slices.Clone(t.tags) }

func (t *commandTool) NeedsConfirm() bool     { return t.trigger != "" }
func (t *commandTool) ConfirmTrigger() string { return t.trigger }

// Command validates input against the tool's schema and returns the full
// argument vector, binary first. Validation failures are
// *schema.ValidationError.
func (t *commandTool) Command(input json.RawMessage) ([]string, error) {
	argv, err := t.cmd.Render(input)
	if err != nil {
		return nil, err
	}
	return append([]string{t.binary}, argv...), nil
}

// TraceLine is the display form of Command; invalid input yields the name.
func (t *commandTool) TraceLine(input json.RawMessage) string {
	argv, err := t.cmd.Render(input)
	if err != nil {
		return t.name
	}
	return execrunner.DisplayCommandLine(t.binary, argv)
}

// errNoRunner reports a serving surface that forgot to supply ExecDeps.Run.
var errNoRunner = errors.New("no command runner: ExecDeps.Run is nil")

// Execute validates and renders input, then runs the binary through
// deps.Run, which carries the server's environment, timeout, redaction and
// progress. A run error (start failure, timeout, cancel) is returned with
// whatever partial record the runner produced.
func (t *commandTool) Execute(ctx context.Context, input json.RawMessage, deps ExecDeps) (*Outcome, error) {
	argv, err := t.cmd.Render(input)
	if err != nil {
		return nil, err
	}
	if deps.Run == nil {
		return nil, errNoRunner
	}
	res, err := deps.Run(ctx, execrunner.Command{Path: t.binary, Args: argv})
	if res == nil {
		if err == nil {
			err = fmt.Errorf("running %s: the runner returned no result", t.name)
		}
		return nil, err
	}
	return &Outcome{Exec: res}, err
}
