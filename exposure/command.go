package exposure

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/fileid"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// commandTool is one leaf command of a fisk application. It is immutable once
// built; every accessor that returns a slice or map returns a copy.
type commandTool struct {
	name        string
	title       string // command path with spaces
	source      string // application binary path
	application string // the name the application gives itself; see Applied
	prefix      string // the application's prefix; see Prefixed
	binary      string
	tags        []string
	description string
	modelDesc   string
	behavior    Behavior
	trigger     string // "" when ungated
	cmd         *schema.Command
	inputs      commandSchemaInputs
	aliases     [][]string // by level of the path; see Aliased
	examples    []Example
	groupHelp   []string      // by group above the command; see Grouped
	loaded      *loadedBinary // the binary file as it was when the tool was loaded; shared by the app
	envars      []string      // the application's declared variables; shared, read only
	secretFlags []string      // the operator's secret flags (Policy.SecretFlags); shared, read only
}

// commandSchemaInputs determine a command's advertised schema: the mode,
// the precomputed schema of that mode and the exposed globals. The schema is
// shared with the model and only read.
type commandSchemaInputs struct {
	mode    schema.Mode
	source  map[string]any
	globals digest // of the app's exposed global flags
}

func (t *commandTool) writeSchemaInputs(w *digester) {
	w.field("mode", string(t.inputs.mode))
	w.label("globals")
	w.raw(t.inputs.globals)
	w.label("command")
	w.value(t.inputs.source)
}

var (
	_ Tool              = (*commandTool)(nil)
	_ Confirmable       = (*commandTool)(nil)
	_ BehaviorDescriber = (*commandTool)(nil)
	_ Describer         = (*commandTool)(nil)
	_ Sourced           = (*commandTool)(nil)
	_ Deferrable        = (*commandTool)(nil)
	_ EnvDeclarer       = (*commandTool)(nil)
	_ Aliased           = (*commandTool)(nil)
	_ Exemplified       = (*commandTool)(nil)
	_ Grouped           = (*commandTool)(nil)
)

// describeCommand returns the human description and the model description
// of a command. An empty help is replaced by one derived from the command
// path (schema.DescriptionFor), so no tool is advertised without words.
// The help and the long help are paragraphs; the tags are the last line,
// under them (a blank line before it would be two more bytes in every
// description of every tools/list, saying nothing).
func describeCommand(path []string, help, helpLong string, tags []string) (description, model string) {
	// The help is the application's text, and the model reads it as it
	// reads a command's output: no escape sequence or invisible character
	// passes (see execrunner.SanitizeOutput).
	help, helpLong = execrunner.SanitizeOutput(help), execrunner.SanitizeOutput(helpLong)
	description = schema.DescriptionFor(path, help)
	model = description
	if l := strings.TrimSpace(helpLong); l != "" {
		model += "\n\n" + l
	}
	if len(tags) > 0 {
		model += "\nTags: " + strings.Join(tags, ", ")
	}
	return description, model
}

func (t *commandTool) Name() string                { return t.name }
func (t *commandTool) Description() string         { return t.description }
func (t *commandTool) ModelDescription() string    { return t.modelDesc }
func (t *commandTool) InputSchema() map[string]any { return t.cmd.InputSchema() }
func (t *commandTool) MCPExposable() bool          { return true }

func (t *commandTool) ReadInputSchema(read func(map[string]any)) { t.cmd.ReadInputSchema(read) }
func (t *commandTool) A2AExposable() bool                        { return true }

func (t *commandTool) Behavior() Behavior         { return t.behavior }
func (t *commandTool) Kind() Kind                 { return KindApplication }
func (t *commandTool) Presentation() Presentation { return PresentationCommand }

func (t *commandTool) Source() string { return t.source }
func (t *commandTool) Prefix() string { return t.prefix }
func (t *commandTool) Title() string  { return t.title }
func (t *commandTool) Tags() []string { return slices.Clone(t.tags) }

func (t *commandTool) Application() string { return t.application }

func (t *commandTool) Aliases() [][]string {
	if t.aliases == nil {
		return nil
	}
	out := make([][]string, len(t.aliases))
	for i, a := range t.aliases {
		out[i] = slices.Clone(a)
	}
	return out
}

func (t *commandTool) Examples() []Example { return slices.Clone(t.examples) }

func (t *commandTool) GroupHelp() []string { return slices.Clone(t.groupHelp) }

// groupHelp is the first line of the help of each group on the way from
// m's root to the leaf at path, outermost first (see Grouped); nil for a
// leaf at the root. The path is one that introspect.Walk found in m, so
// every group on it is there.
func groupHelp(m *fisk.ApplicationModel, path []string) []string {
	return indexGroupHelp(m).of(path)
}

// groupHelpIndex is the one-line help of every group of a model, by its
// path (names joined by NUL), so that the tools of a group of any
// width look it up rather than each scan the group's siblings.
type groupHelpIndex map[string]string

// indexGroupHelp indexes the groups of m, visiting each command once.
func indexGroupHelp(m *fisk.ApplicationModel) groupHelpIndex {
	idx := groupHelpIndex{}
	if m == nil || m.CmdGroupModel == nil {
		return idx
	}
	var walk func(prefix string, cmds []*fisk.CmdModel)
	walk = func(prefix string, cmds []*fisk.CmdModel) {
		seen := make(map[string]bool, len(cmds))
		for _, c := range cmds {
			if c == nil || seen[c.Name] {
				continue // of two commands of one name, the first is the one
			}
			seen[c.Name] = true
			if c.CmdGroupModel == nil {
				continue
			}
			key := c.Name
			if prefix != "" {
				key = prefix + "\x00" + c.Name
			}
			line, _, _ := strings.Cut(strings.TrimSpace(c.Help), "\n")
			idx[key] = execrunner.SanitizeOutput(strings.TrimSpace(line))
			walk(key, c.Commands)
		}
	}
	walk("", m.Commands)
	return idx
}

// of is groupHelp for the command at path.
func (idx groupHelpIndex) of(path []string) []string {
	if len(path) < 2 {
		return nil
	}
	out := make([]string, 0, len(path)-1)
	key := ""
	for i, name := range path[:len(path)-1] {
		if i > 0 {
			key += "\x00"
		}
		key += name
		line, ok := idx[key]
		if !ok {
			return nil
		}
		out = append(out, line)
	}
	return out
}

// NoDefer reports ai:no_defer on the command or a group above it: where a
// tool is listed is not a safety decision, so a group may ask it for the
// commands beneath.
func (t *commandTool) NoDefer() bool { return slices.Contains(t.tags, TagNoDefer) }

func (t *commandTool) Envars() []string { return slices.Clone(t.envars) }

func (t *commandTool) NeedsConfirm() bool     { return t.trigger != "" }
func (t *commandTool) ConfirmTrigger() string { return t.trigger }

// Prepare validates input against the tool's schema and renders the full
// argument vector, binary first, once, and its display form with the values
// of secret flags hidden (see IsSecretFlag). The call checks, when asked
// (Call.CheckBinary), that the binary is still the file that was loaded.
// Validation failures are *schema.ValidationError.
func (t *commandTool) Prepare(input json.RawMessage) (*Call, error) {
	args, err := t.cmd.Render(input)
	if err != nil {
		return nil, hideSecretValues(err, t.cmd, input, t.secretFlags)
	}
	argv := make([]string, 0, 1+len(args))
	argv = append(append(argv, t.binary), args...)
	display, secrets := hideSecretFlags(argv, t.secretFlags)
	return &Call{argv: argv, display: display, secrets: secrets, arguments: input, command: true, check: t.checkBinary, envars: t.envars}, nil
}

// ErrBinaryChanged is returned by a command call's CheckBinary, before
// anything runs, when the file at the application's path is not the file the tool was
// loaded from: replaced, rewritten or removed since, or not examinable when
// the tool was loaded. The tool's schema and argv describe the program that
// was introspected; handing them to another program could make it do
// anything, so the call fails instead. Reloading the application (which
// fisk-mcp does on its own with --watch) yields tools bound to the new file.
var ErrBinaryChanged = errors.New("the application binary changed since it was loaded")

// binaryIdentity returns the binary's path and its identity as loaded (see
// loadedBinary). Building a ToolSet fixes it for every command tool.
func (t *commandTool) binaryIdentity() (string, fileid.ID, error) {
	b := t.loaded.get()
	return t.binary, b.id, b.err
}

func (t *commandTool) program() *loadedBinary { return t.loaded }

// checkBinary fails with ErrBinaryChanged unless the file at the binary's
// path is still the one that was loaded.
//
// A window remains between this check and the exec that follows it: a file
// renamed over the path in between still runs. Closing it needs exec by file
// descriptor (fexecve or execveat), which os/exec does not offer; executing
// /proc/self/fd/N instead works only on Linux and fails for "#!" scripts,
// whose interpreter opens the path after the close-on-exec descriptor is
// gone. The check narrows the window from the whole life of the tool set to
// the microseconds between a stat and a fork.
func (t *commandTool) checkBinary() error {
	_, want, err := t.binaryIdentity()
	if err != nil {
		return fmt.Errorf("%w: %s could not be examined when it was loaded (%v)", ErrBinaryChanged, t.binary, err)
	}
	got, err := fileid.Stat(t.binary)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBinaryChanged, t.binary, err)
	}
	if d := want.Differs(got); d != "" {
		return fmt.Errorf("%w: %s %s", ErrBinaryChanged, t.binary, d)
	}
	return nil
}
