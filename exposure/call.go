package exposure

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
)

// Call is one call of one tool, prepared by [Tool.Prepare]: its input
// validated and rendered exactly once. It is immutable; every accessor
// returns a copy the caller may keep.
//
// A Call is either a command, which the serving surface runs itself
// ([Call.Command]), or in-process ([Call.Run]). The presence of a command is
// the whole discriminator, and it decides the result's shape: a command's
// record is wrapped in an envelope, an in-process tool's JSON passes through.
type Call struct {
	argv      []string
	display   []string // argv with secret flag values hidden; nil when argv has none
	secrets   []string // the values display hides
	arguments json.RawMessage
	command   bool // argv is a command to run: binary first
	check     func() error
	run       func(context.Context) (*Outcome, error)
	envars    []string // shared with the tool, read only
}

// NewInProcessCall returns the prepared call of an in-process tool called
// name, whose validated arguments are arguments and whose work is run. Its
// argv is name followed by the arguments as compact JSON: an in-process tool
// has no argv, and this is what a person approving the call is shown.
func NewInProcessCall(name string, arguments json.RawMessage, run func(context.Context) (*Outcome, error)) (*Call, error) {
	if run == nil {
		return nil, errors.New("in-process call " + name + ": no function to run")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, arguments); err != nil {
		return nil, err
	}
	return &Call{argv: []string{name, compact.String()}, arguments: arguments, run: run}, nil
}

// Argv is the argument vector: a command's binary followed by its arguments,
// or an in-process tool's name followed by its arguments as compact JSON.
// The display line, for the person and the log, is rendered from it.
func (c *Call) Argv() []string { return slices.Clone(c.argv) }

// DisplayArgv is Argv as a person and the log are shown it: the value of
// every secret flag replaced by execrunner.Redacted (--password=[redacted]),
// so the person sees which flag carries a secret but not the secret. The
// display line is rendered from it; the run uses Argv.
func (c *Call) DisplayArgv() []string {
	if c.display == nil {
		return c.Argv()
	}
	return slices.Clone(c.display)
}

// Secrets are the values DisplayArgv hides: the run redacts them from the
// command's output too.
func (c *Call) Secrets() []string { return slices.Clone(c.secrets) }

// Arguments are the call's arguments as validated. An approval binds their
// canonical form.
func (c *Call) Arguments() json.RawMessage { return slices.Clone(c.arguments) }

// Command returns the command to run, path and argv only: the serving
// surface supplies environment, timeout, kill grace and redaction. ok is
// false for an in-process call.
func (c *Call) Command() (cmd execrunner.Command, ok bool) {
	if !c.command {
		return execrunner.Command{}, false
	}
	return execrunner.Command{Path: c.argv[0], Args: slices.Clone(c.argv[1:])}, true
}

// Envars names the environment variables a command's application declares
// for its flags (see [EnvDeclarer]): the run keeps them, as the
// application's own settings. Nil for an in-process call.
func (c *Call) Envars() []string { return slices.Clone(c.envars) }

// CheckBinary fails with [ErrBinaryChanged] unless a command's binary is
// still the file the tool was loaded from; for an in-process call it is nil.
// Call it once, immediately before the run, after every wait: it is a stat,
// and it narrows the window in which another program could run with
// arguments rendered for this one to the time between it and the exec.
func (c *Call) CheckBinary() error {
	if c.check == nil {
		return nil
	}
	return c.check()
}

// Run runs an in-process call and returns what it produced. A command call
// is not run here; Run fails for one.
func (c *Call) Run(ctx context.Context) (*Outcome, error) {
	if c.run == nil {
		return nil, errNotInProcess
	}
	return c.run(ctx)
}

// errNotInProcess reports Run on a command call, which the serving surface
// runs itself.
var errNotInProcess = errors.New("a command call is run by the serving surface (Call.Command), not by Run")
