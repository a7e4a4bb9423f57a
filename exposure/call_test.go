package exposure_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// executed is what running a prepared call produced, as a serving surface
// sees it: a command's record, or an in-process tool's outcome.
type executed struct {
	Output   json.RawMessage
	Exec     *execrunner.Result
	Deferred bool
}

// runner runs a prepared command where a serving surface would.
type runner func(ctx context.Context, c execrunner.Command) (*execrunner.Result, error)

// countingRunner runs commands for real and counts them.
func countingRunner(n *int) runner {
	return func(ctx context.Context, c execrunner.Command) (*execrunner.Result, error) {
		*n++
		return execrunner.Run(ctx, c)
	}
}

// execute prepares input and runs the call as a serving surface does: the
// binary checked once, right before the run; a command through run, an
// in-process call through Call.Run.
func execute(ctx context.Context, tool exposure.Tool, input json.RawMessage, run runner) (*executed, error) {
	call, err := tool.Prepare(input)
	if err != nil {
		return nil, err
	}
	if err := call.CheckBinary(); err != nil {
		return nil, err
	}
	if c, ok := call.Command(); ok {
		res, err := run(ctx, c)
		if res == nil {
			return nil, err
		}
		return &executed{Exec: res}, err
	}
	out, err := call.Run(ctx)
	if out == nil {
		return nil, err
	}
	return &executed{Output: out.Output, Deferred: out.Deferred}, err
}

func TestPreparedCommandIsPathAndArgvOnly(t *testing.T) {
	set := build(t, exposure.Policy{})
	call, err := mustLookup(t, set, "sleep").Prepare(json.RawMessage(`{"context":"c"}`))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := call.Command()
	if !ok || c.Path != fixtureBin || !slices.Equal(append([]string{c.Path}, c.Args...), call.Argv()) {
		t.Fatalf("Command = %+v, %v; want the binary and the argv %q", c, ok, call.Argv())
	}
	// Environment, timeout and redaction are the serving surface's.
	if c.Env != nil || c.Timeout != 0 || c.KillGrace != 0 || c.Redactor != nil || c.Dir != "" {
		t.Errorf("Command carries run policy: %+v", c)
	}
	c.Args[0] = "changed"
	if again, _ := call.Command(); again.Args[0] == "changed" {
		t.Error("the prepared call shares its argv with a caller")
	}
}

func TestCommandCallIsNotRunInProcess(t *testing.T) {
	set := build(t, exposure.Policy{})
	call, err := mustLookup(t, set, "sleep").Prepare(json.RawMessage(`{"context":"c"}`))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := call.Run(background); err == nil || out != nil {
		t.Errorf("Run of a command call = %+v, %v; want an error and nothing run", out, err)
	}
}

func TestInProcessCallShowsItsNameAndCompactArguments(t *testing.T) {
	ran := false
	call, err := exposure.NewInProcessCall("later", json.RawMessage(`{ "a" : 1 }`), func(context.Context) (*exposure.Outcome, error) {
		ran = true
		return &exposure.Outcome{Deferred: true}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if argv := call.Argv(); !slices.Equal(argv, []string{"later", `{"a":1}`}) {
		t.Errorf("Argv = %q", argv)
	}
	if _, ok := call.Command(); ok || call.CheckBinary() != nil {
		t.Error("an in-process call reports a command or a binary")
	}
	if out, err := call.Run(background); err != nil || !out.Deferred || !ran {
		t.Errorf("Run = %+v, %v", out, err)
	}
	if _, err := exposure.NewInProcessCall("x", json.RawMessage(`{}`), nil); err == nil {
		t.Error("a call without a function was accepted")
	}
	if _, err := exposure.NewInProcessCall("x", json.RawMessage(`{`), func(context.Context) (*exposure.Outcome, error) { return nil, nil }); err == nil {
		t.Error("arguments that are not JSON were accepted")
	}
}
