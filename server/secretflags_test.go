package server

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// secretFlagSet serves the fixture with its --password global flag
// exposed (its name says it carries a secret) and --label named secret by
// the operator.
func secretFlagSet(t *testing.T) *exposure.ToolSet {
	t.Helper()
	set, err := exposure.Load(t.Context(), []exposure.App{{Path: fixtureBin, Globals: []string{"password"}}}, nil,
		exposure.Policy{SecretFlags: []string{"label"}}, exposure.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// The command runs with the real values; the result's command, the log
// line and (below) the approval prompt show which flags carry a secret,
// never the secret. A value long enough to redact is hidden from the
// output too.
func TestSecretFlagValuesAreHiddenFromTheCommandLineButNotFromTheCommand(t *testing.T) {
	const short, long = "hunter2", "label-secret-value-1"
	s, logs := newServer(t, Config{}, secretFlagSet(t))
	cs := connect(t, s, legacyVersion, nil)
	res := call(t, cs, "echo", map[string]any{"context": "test", "subject": "visible-subject", "password": short, "label": []any{long}})
	env := envelope(t, res)
	if env.ExitCode != 0 {
		t.Fatalf("echo failed: %s", text(res))
	}
	if !strings.Contains(env.Output, `"password":"`+short+`"`) {
		t.Errorf("the command did not get the real password: %s", env.Output)
	}
	if strings.Contains(env.Output, long) {
		t.Errorf("the secret label reached the output: %s", env.Output)
	}
	for _, want := range []string{"'--password=[redacted]'", "'--label=[redacted]'", "visible-subject"} {
		if !strings.Contains(env.Command, want) {
			t.Errorf("command %q lacks %s", env.Command, want)
		}
	}
	lines := logs.records("tool call")
	if len(lines) != 1 {
		t.Fatalf("%d call lines", len(lines))
	}
	if argv, _ := lines[0]["argv"].(string); argv != env.Command {
		t.Errorf("logged argv %q, want the result's command %q", argv, env.Command)
	}
	for _, secret := range []string{"=" + short, long} {
		if strings.Contains(env.Command, secret) || strings.Contains(logs.String(), secret) {
			t.Errorf("%q reached the command line or the log:\n%s", secret, logs)
		}
	}
}

func TestApprovalPromptNamesTheSecretFlagButHidesItsValue(t *testing.T) {
	const password = "prompt-password-1"
	s, _ := newServer(t, Config{}, secretFlagSet(t))
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			asked := make(chan string, 10)
			cs := connect(t, s, version, answering("accept", true, asked))
			path := tempPath(t, "touched")
			res := call(t, cs, "touch", map[string]any{"context": "test", "path": path, "password": password})
			if res.IsError || !exists(t, path) {
				t.Fatalf("approved call failed: %s", text(res))
			}
			question := wait(t, asked, "the approval question")
			line := promptCommand(t, question)
			if !strings.Contains(line, "'--password=[redacted]'") || strings.Contains(question, password) {
				t.Errorf("prompt command %q, want --password=[redacted] and no password", line)
			}
			if got := envelope(t, res).Command; got != line {
				t.Errorf("result command %q, want the prompt's %q", got, line)
			}
		})
	}
}
