package exposure_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// echoed is what the fixture's echo command prints.
type echoed struct {
	Command string         `json:"command"`
	Argv    []string       `json:"argv"`
	Values  map[string]any `json:"values"`
}

func TestCommandToolExecuteRunsTheValidatedArgvThroughTheRunner(t *testing.T) {
	set := build(t, exposure.Policy{})
	echo := mustLookup(t, set, "echo")
	var ran []execrunner.Command
	run := func(ctx context.Context, c execrunner.Command) (*execrunner.Result, error) {
		ran = append(ran, c)
		return execrunner.Run(ctx, c)
	}
	out, err := execute(background, echo, json.RawMessage(`{"subject":"hello world","mode":"slow","context":"prod"}`), run)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if out.Exec == nil || out.Output != nil {
		t.Fatalf("outcome = %+v, want an exec record and no output", out)
	}
	if len(ran) != 1 || ran[0].Path != fixtureBin {
		t.Fatalf("runner got %+v, want one run of %s", ran, fixtureBin)
	}
	if out.Exec.ExitCode != 0 {
		t.Fatalf("exit %d: %s", out.Exec.ExitCode, out.Exec.Output)
	}
	var got echoed
	if err := json.Unmarshal([]byte(out.Exec.Output), &got); err != nil {
		t.Fatalf("echo output %q: %v", out.Exec.Output, err)
	}
	if got.Command != "echo" || got.Values["subject"] != "hello world" || got.Values["mode"] != "slow" || got.Values["context"] != "prod" {
		t.Errorf("the binary parsed %+v", got)
	}
	if !slices.Equal(got.Argv, ran[0].Args) {
		t.Errorf("binary saw argv %q, runner was given %q", got.Argv, ran[0].Args)
	}
	call, err := echo.Prepare(json.RawMessage(`{"subject":"hello world","mode":"slow","context":"prod"}`))
	if err != nil || !slices.Equal(call.Argv(), append([]string{fixtureBin}, ran[0].Args...)) {
		t.Errorf("Argv = %q, %v; want the binary followed by the run's args %q", call.Argv(), err, ran[0].Args)
	}
}

func TestCommandToolRejectsInvalidInputWithoutRunning(t *testing.T) {
	set := build(t, exposure.Policy{})
	echo := mustLookup(t, set, "echo")
	run := func(context.Context, execrunner.Command) (*execrunner.Result, error) {
		t.Error("the runner was called for invalid input")
		return nil, nil
	}
	for _, in := range []string{`{"nosuch":1}`, `{"subject":"x","context":"c"} trailing`, `[1]`} {
		_, err := execute(background, echo, json.RawMessage(in), run)
		var ve *schema.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("input %s: error %v is not a *schema.ValidationError", in, err)
		}
		if call, err := echo.Prepare(json.RawMessage(in)); err == nil || call != nil {
			t.Errorf("input %s: Prepare accepted it", in)
		}
	}
}

func TestDisplayLineOfThePreparedCallShowsTheCommand(t *testing.T) {
	set := build(t, exposure.Policy{})
	call, err := mustLookup(t, set, "touch").Prepare(json.RawMessage(`{"path":"/tmp/a file","context":"c"}`))
	if err != nil {
		t.Fatal(err)
	}
	argv := call.Argv()
	line := execrunner.DisplayCommandLine(argv[0], argv[1:])
	if !strings.HasPrefix(line, fixtureBin+" ") || !strings.Contains(line, "touch") || !strings.Contains(line, "'/tmp/a file'") {
		t.Errorf("display line = %q", line)
	}
}

func TestLoadIntrospectsTheBinaryEndToEnd(t *testing.T) {
	apps := []exposure.App{{Prefix: "fx", Path: fixtureBin, Globals: []string{"server"}}}
	set, err := exposure.Load(background, apps, nil, exposure.Policy{}, exposure.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != len(fixtureTools) {
		t.Errorf("%d tools, want %d", set.Len(), len(fixtureTools))
	}
	mustLookup(t, set, "fx_admin_user_add")
}

func TestLoadFailureNamesTheApplication(t *testing.T) {
	apps := []exposure.App{{Path: fixtureBin}, {Prefix: "gone", Path: "/nonexistent/fisk-app"}}
	_, err := exposure.Load(background, apps, nil, exposure.Policy{}, exposure.LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/fisk-app") {
		t.Errorf("error = %v, want one naming the missing binary", err)
	}
}
