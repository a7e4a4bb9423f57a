package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixtureTools are the tools the fixture exposes with default settings:
// every visible leaf except the ai:deny one.
var fixtureTools = []string{
	"admin_user_add", "admin_user_delete", "admin_user_list", "batch",
	"conflict_additive-destructive", "conflict_readwrite", "conflict_sparkle",
	"deploy", "echo", "emit", "env", "exit", "sleep", "spawn", "status", "touch",
}

// invocation is what the fixture's echo prints: its argv and parsed values.
type invocation struct {
	Command string         `json:"command"`
	Argv    []string       `json:"argv"`
	Values  map[string]any `json:"values"`
}

func echoed(t *testing.T, res *mcp.CallToolResult) invocation {
	t.Helper()
	if res.IsError {
		t.Fatalf("echo failed: %s", text(res))
	}
	env := envelope(t, res)
	var inv invocation
	if err := json.Unmarshal([]byte(env.Output), &inv); err != nil {
		t.Fatalf("echo output is not an invocation: %v: %q", err, env.Output)
	}
	return inv
}

func toolMap(t *testing.T, s *session) map[string]*mcp.Tool {
	t.Helper()
	res, err := s.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		m[tool.Name] = tool
	}
	return m
}

func TestListToolsServesEveryVisibleCommandButDenied(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			s := startStdio(t, client{protocol: proto}, fixtureBin)
			tools := toolMap(t, s)
			var names []string
			for name := range tools {
				names = append(names, name)
			}
			slices.Sort(names)
			if !slices.Equal(names, fixtureTools) {
				t.Fatalf("tools = %v\nwant    %v", names, fixtureTools)
			}
			echo := tools["echo"]
			if echo.Annotations == nil || !echo.Annotations.ReadOnlyHint {
				t.Errorf("echo (ai:read_only) annotations = %+v", echo.Annotations)
			}
			rw := tools["conflict_readwrite"]
			if rw.Annotations == nil || rw.Annotations.ReadOnlyHint || rw.Annotations.DestructiveHint == nil || !*rw.Annotations.DestructiveHint {
				t.Errorf("read-only plus destructive must resolve to destructive: %+v", rw.Annotations)
			}
			schema, _ := json.Marshal(echo.InputSchema)
			for _, want := range []string{`"subject"`, `"context"`, `"additionalProperties":false`} {
				if !strings.Contains(string(schema), want) {
					t.Errorf("echo schema lacks %s: %s", want, schema)
				}
			}
			if strings.Contains(string(schema), "debug-token") {
				t.Errorf("hidden flag advertised: %s", schema)
			}
		})
	}
}

func TestCallRunsTheCommandWithArgumentsAsArgv(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			s := startStdio(t, client{protocol: proto}, fixtureBin)
			inv := echoed(t, s.call(t, "echo", args("subject", "--force", "body", "$(touch /tmp/x); `id`", "mode", "slow", "label", []any{"a", "b c"})))
			if inv.Command != "echo" {
				t.Errorf("ran %q", inv.Command)
			}
			v := inv.Values
			if v["subject"] != "--force" || v["force"] != false {
				t.Errorf("a value that looks like a flag became a flag: %v", v)
			}
			if v["body"] != "$(touch /tmp/x); `id`" {
				t.Errorf("body = %v: no shell may touch it", v["body"])
			}
			if v["mode"] != "slow" || v["context"] != "e2e" {
				t.Errorf("values = %v", v)
			}
			if labels, _ := v["label"].([]any); len(labels) != 2 || labels[1] != "b c" {
				t.Errorf("label = %v", v["label"])
			}
		})
	}
}

func TestInvalidArgumentsAreRefusedBeforeAnythingRuns(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"missing required", args(), "subject"},
		{"missing required global", map[string]any{"subject": "x"}, "context"},
		{"enum violated", args("subject", "x", "mode", "bogus"), "mode"},
		{"unknown property", args("subject", "x", "nonsense", true), "nonsense"},
		{"hidden flag", args("subject", "x", "debug-token", "t"), "debug-token"},
		{"wrong type", args("subject", "x", "count", "three"), "count"},
	}
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			s := startStdio(t, client{protocol: proto}, fixtureBin)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					res := s.call(t, "echo", tc.args)
					if !res.IsError || res.StructuredContent != nil {
						t.Fatalf("accepted or ran: %s", text(res))
					}
					if msg := text(res); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "nothing ran") {
						t.Errorf("message %q does not name %q and say nothing ran", msg, tc.want)
					}
				})
			}
			s.log.nthCall(t, "echo", len(cases))
			for _, rec := range s.log.finalCalls("echo") {
				if rec["result"] != "invalid_arguments" || rec["exit_code"] != nil {
					t.Errorf("a refused call ran: %v", rec)
				}
			}
		})
	}
}

func TestDeniedToolCannotBeCalledByName(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			s := startStdio(t, client{protocol: proto}, fixtureBin)
			for _, name := range []string{"admin_purge", "internal_debug_dump", "secret"} {
				res, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args()})
				if err == nil && !res.IsError {
					t.Errorf("%s ran: %s", name, text(res))
				}
			}
		})
	}
}

func TestNonZeroExitIsANormalResultCarryingTheCode(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			s := startStdio(t, client{protocol: proto}, fixtureBin)
			res := s.call(t, "exit", args("code", 3))
			if res.IsError {
				t.Fatalf("a non-zero exit is not a tool error: %s", text(res))
			}
			env := envelope(t, res)
			if env.ExitCode != 3 || !strings.Contains(env.Output, "exiting with 3") {
				t.Errorf("envelope = %+v", env)
			}
			if rec := s.log.callRecord(t, "exit"); rec["exit_code"] != float64(3) || rec["result"] != "exit" {
				t.Errorf("call log = %v", rec)
			}
		})
	}
}

func TestCommandOverTheTimeoutIsKilledAndReported(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			s := startStdio(t, client{protocol: proto}, "--timeout", "300ms", fixtureBin)
			res := s.call(t, "sleep", args("for", "1h"))
			if !res.IsError || !strings.Contains(text(res), "timed out") {
				t.Fatalf("result = %s", text(res))
			}
			if env := envelope(t, res); env.Signal == "" || env.ExitCode != -1 {
				t.Errorf("envelope = %+v, want killed by a signal", env)
			}
			if rec := s.log.callRecord(t, "sleep"); rec["result"] != "timeout" {
				t.Errorf("call log = %v", rec)
			}
		})
	}
}

func TestCommandsGetAScrubbedEnvironmentAndSecretsAreRedacted(t *testing.T) {
	const secret = "very-secret-value-1234"
	s := startStdio(t, client{protocol: modernProtocol, env: []string{
		"ANTHROPIC_API_KEY=sk-ant-should-not-pass", "MY_SECRET=" + secret, "KEEP_ME=visible",
	}}, "--scrub-env", "MY_SECRET", fixtureBin)

	out := envelope(t, s.call(t, "env", args())).Output
	for _, gone := range []string{"ANTHROPIC_API_KEY", "MY_SECRET", secret} {
		if strings.Contains(out, gone) {
			t.Errorf("%s reached the command:\n%s", gone, out)
		}
	}
	for _, kept := range []string{"KEEP_ME=visible", "LLMFORMAT=1"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%s missing from the command's environment", kept)
		}
	}

	res := s.call(t, "echo", args("subject", secret))
	env := envelope(t, res)
	if strings.Contains(text(res), secret) || strings.Contains(env.Command, secret) {
		t.Errorf("the secret value was not redacted: %s", text(res))
	}
	if strings.Contains(s.log.String(), secret) {
		t.Errorf("the secret value reached the log")
	}
}

func TestOutputIsCappedHeadAndTail(t *testing.T) {
	s := startStdio(t, client{protocol: modernProtocol}, fixtureBin)
	env := envelope(t, s.call(t, "emit", args("bytes", 1<<20)))
	if !env.Truncated || env.BytesTotal < 1<<20 || len(env.Output) > 70<<10 {
		t.Errorf("truncated=%v total=%d len=%d", env.Truncated, env.BytesTotal, len(env.Output))
	}
}

// TestOutputSchemaFlagAdvertisesTheCommandResult proves --output-schema
// end to end: without it no tool advertises an output schema, with it every
// command tool advertises the envelope, and a call's structuredContent is
// the envelope either way.
func TestOutputSchemaFlagAdvertisesTheCommandResult(t *testing.T) {
	for _, flags := range [][]string{nil, {"--output-schema"}} {
		s := startStdio(t, client{protocol: protocols[0]}, append(flags, fixtureBin)...)
		for name, tool := range toolMap(t, s) {
			out, _ := json.Marshal(tool.OutputSchema)
			if advertised := tool.OutputSchema != nil; advertised != (flags != nil) {
				t.Errorf("%v: %s output schema = %s", flags, name, out)
			} else if advertised && !strings.Contains(string(out), `"exit_code"`) {
				t.Errorf("%v: %s output schema %s is not the command result", flags, name, out)
			}
		}
		if inv := echoed(t, s.call(t, "echo", args("context", "test", "subject", "x"))); inv.Command == "" {
			t.Errorf("%v: echo printed no invocation", flags)
		}
	}
}
