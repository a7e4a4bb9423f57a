package server

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCallReturnsCommandEnvelope(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, s, version, nil)
			res := call(t, cs, "echo", map[string]any{"context": "test", "subject": "hello world"})
			if res.IsError {
				t.Fatalf("echo failed: %s", text(res))
			}
			env := envelope(t, res)
			if env.ExitCode != 0 || env.Signal != "" || env.Truncated {
				t.Errorf("envelope = %+v, want a clean exit", env)
			}
			if !strings.Contains(env.Output, `"hello world"`) || env.BytesTotal != int64(len(env.Output)) {
				t.Errorf("output %q (%d bytes) does not hold the echoed subject", env.Output, env.BytesTotal)
			}
			if !strings.Contains(env.Command, "echo") || !strings.Contains(env.Command, "'hello world'") {
				t.Errorf("command = %q, want the quoted command line", env.Command)
			}
			structured, _ := json.Marshal(res.StructuredContent)
			var fromText CommandResult
			if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil || fromText != env {
				t.Errorf("text content %q is not the structured content %s", text(res), structured)
			}
		})
	}
}

func TestNonZeroExitIsANormalResult(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	res := call(t, connect(t, s, legacyVersion, nil), "exit", map[string]any{"context": "test", "code": 3})
	if res.IsError {
		t.Fatalf("a non-zero exit was reported as an error: %s", text(res))
	}
	if env := envelope(t, res); env.ExitCode != 3 || !strings.Contains(env.Output, "exiting with 3") {
		t.Errorf("envelope = %+v, want exit code 3 and the command's output", env)
	}
}

func TestInvalidArgumentsRunNothing(t *testing.T) {
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, nil)
	marker := tempPath(t, "deployed")
	cases := []struct {
		name string
		args map[string]any
	}{
		{"unknown property", map[string]any{"context": "test", "release": "v1", "marker": marker, "bogus": true}},
		{"missing required argument", map[string]any{"context": "test", "marker": marker}},
		{"wrong type", map[string]any{"context": "test", "release": 7, "marker": marker}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := call(t, cs, "deploy", c.args)
			if !res.IsError || !strings.HasPrefix(text(res), "nothing ran: invalid arguments") {
				t.Errorf("result = %q (isError %v), want an invalid-arguments error", text(res), res.IsError)
			}
			if exists(t, marker) {
				t.Fatal("the command ran despite invalid arguments")
			}
		})
	}
	for _, rec := range logs.records("tool call") {
		if rec["result"] != "invalid_arguments" {
			t.Errorf("log record %v, want result invalid_arguments", rec)
		}
	}
}

// spawnReport is the line spawn prints once its grandchild runs: "PID CHILD".
var spawnReport = regexp.MustCompile(`(?m)^[0-9]+ [0-9]+$`)

func TestTimeoutKillsTheProcessGroupAndKeepsPartialOutput(t *testing.T) {
	// The timeout counts from the command's start and has to outlast
	// spawn's start, which prints the pids the assertions rely on. No event
	// can hold a timeout back, so a run whose spawn had not printed them
	// when it fired (a slow machine) is run again with twice the timeout:
	// the passing path waits one short timeout, slowness costs reruns, and
	// nothing asserts how long anything took.
	for timeout := time.Second; ; timeout *= 2 {
		s, _ := newServer(t, Config{Timeout: timeout}, fixtureSet(t, exposure.Policy{}))
		pidFile, written := pidFIFO(t)
		res := call(t, connect(t, s, legacyVersion, nil), "spawn", map[string]any{"context": "test", "for": "1h", "pid-file": pidFile})
		if !res.IsError || !strings.Contains(text(res), "timed out") {
			t.Fatalf("result = %q (isError %v), want a timeout error", text(res), res.IsError)
		}
		env := envelope(t, res)
		if env.ExitCode != -1 || env.Signal == "" {
			t.Errorf("envelope = %+v, want death by signal", env)
		}
		if !spawnReport.MatchString(env.Output) {
			// The group was killed before the call returned, so spawn
			// never will print them; its grandchild, if any, died with it.
			if 2*timeout > guard/2 {
				t.Fatalf("spawn never printed its pids before the timeout, the last of %v: output %q", timeout, env.Output)
			}
			t.Logf("spawn had not printed its pids when its %v timeout fired; running it again with more time", timeout)
			continue
		}
		// spawn writes the pipe before it prints.
		pids := watchPids(t, wait(t, written, "spawn's pids"))
		for pid := range pids {
			if !strings.Contains(env.Output, itoa(pid)) {
				t.Errorf("partial output %q lacks pid %d", env.Output, pid)
			}
		}
		awaitExit(t, pids)
		return
	}
}

func TestCancelKillsTheProcessGroup(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, s, version, nil)
			pidFile, written := pidFIFO(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := background(func() error {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn", Arguments: map[string]any{"context": "test", "for": "1h", "pid-file": pidFile}})
				return err
			})
			pids := watchPids(t, wait(t, written, "spawn's pids"))
			cancel()
			if err := wait(t, done, "the cancelled call"); err == nil {
				t.Error("the cancelled call returned no error")
			}
			awaitExit(t, pids)
		})
	}
}

func TestProgressReportsElapsedTimeAndBytes(t *testing.T) {
	type report struct {
		progress float64
		message  string
		token    any
	}
	reports := make(chan report, 100)
	s, _ := newServer(t, Config{ProgressInterval: 10 * time.Millisecond}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			reports <- report{req.Params.Progress, req.Params.Message, req.Params.ProgressToken}
		},
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	params := &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"context": "test", "for": "1h"}}
	params.SetProgressToken("sleep-1")
	done := background(func() error { _, err := cs.CallTool(ctx, params); return err })

	first := wait(t, reports, "the first progress report")
	second := wait(t, reports, "the second progress report")
	cancel()
	wait(t, done, "the cancelled call")
	if first.token != "sleep-1" || second.progress <= first.progress {
		t.Errorf("reports %+v then %+v: want the call's token and increasing progress", first, second)
	}
	if !strings.Contains(first.message, "running for") || !strings.Contains(first.message, "bytes of output") {
		t.Errorf("message %q, want elapsed time and bytes", first.message)
	}
}

func TestConcurrencyCapHolds(t *testing.T) {
	b := newBarrier()
	s, _ := newServer(t, Config{Concurrency: 2}, customSet(t, b.tool(t)))
	waiting := make(chan string, 10)
	s.onSlotWait = func(tool string) { waiting <- tool }
	cs := connect(t, s, legacyVersion, nil)

	var results []<-chan *mcp.CallToolResult
	for range 3 {
		results = append(results, background(func() *mcp.CallToolResult { return call(t, cs, "hold", nil) }))
	}
	wait(t, b.entered, "the first call to run")
	wait(t, b.entered, "the second call to run")
	wait(t, waiting, "the third call to wait for a slot")
	if got := b.max(); got != 2 {
		t.Fatalf("%d calls ran at once, want 2", got)
	}
	close(b.release)
	for i, ch := range results {
		if res := wait(t, ch, "a call to finish"); res.IsError {
			t.Errorf("call %d: %s", i, text(res))
		}
	}
	if got := b.max(); got != 2 {
		t.Errorf("%d calls ran at once, want at most 2", got)
	}
}

func TestToolWithoutConfirmableIsRefused(t *testing.T) {
	tool := bareTool{ran: make(chan struct{})}
	s, _ := newServer(t, Config{}, customSet(t, tool))
	res := call(t, connect(t, s, legacyVersion, nil), "bare", nil)
	if !res.IsError || !strings.Contains(text(res), "cannot report whether it needs") {
		t.Errorf("result = %q (isError %v), want a refusal", text(res), res.IsError)
	}
	select {
	case <-tool.ran:
		t.Error("a tool that cannot report its gate ran")
	default:
	}
}

func TestDeferredOutcomeIsRefused(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, deferringTool{}))
	res := call(t, connect(t, s, legacyVersion, nil), "later", nil)
	if !res.IsError || !strings.Contains(text(res), "later") {
		t.Errorf("result = %q (isError %v), want a refusal of the deferred answer", text(res), res.IsError)
	}
}

func TestInProcessOutputPassesThrough(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	cs := connect(t, s, modernVersion, nil)
	if tool := listTools(t, cs)["echo_json"]; tool.OutputSchema != nil {
		t.Errorf("in-process tool advertises output schema %v", tool.OutputSchema)
	}
	res := call(t, cs, "echo_json", map[string]any{"word": "hi"})
	got, _ := json.Marshal(res.StructuredContent)
	if res.IsError || string(got) != `{"word":"hi"}` || text(res) != `{"word":"hi"}` {
		t.Errorf("result = %s / %q (isError %v), want the tool's JSON as is", got, text(res), res.IsError)
	}
}

func TestEveryCallLogsOneLine(t *testing.T) {
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, nil)
	call(t, cs, "echo", map[string]any{"context": "test", "subject": "logged"})
	call(t, cs, "echo", map[string]any{"context": "test"})

	recs := logs.records("tool call")
	if len(recs) != 2 {
		t.Fatalf("%d call log lines, want 2:\n%s", len(recs), logs)
	}
	ok := recs[0]
	want := map[string]any{"tool": "echo", "kind": "application", "client": "test-client/1.2.3", "decision": "ungated", "result": "ok", "exit_code": float64(0)}
	for k, v := range want {
		if ok[k] != v {
			t.Errorf("log %s = %v, want %v", k, ok[k], v)
		}
	}
	if argv, _ := ok["argv"].(string); !strings.Contains(argv, "echo") || !strings.Contains(argv, "logged") {
		t.Errorf("log argv = %q, want the command line", argv)
	}
	if b, _ := ok["bytes"].(float64); b <= 0 {
		t.Errorf("log bytes = %v, want the output size", ok["bytes"])
	}
	if _, has := ok["duration"]; !has {
		t.Error("log line has no duration")
	}
	if recs[1]["result"] != "invalid_arguments" {
		t.Errorf("second log line %v, want result invalid_arguments", recs[1])
	}
}

func TestSecretsAreRedactedInOutputAndLogs(t *testing.T) {
	const secret = "hunter2-but-longer"
	s, logs := newServer(t, Config{Redactor: execrunner.NewRedactor(secret)}, fixtureSet(t, exposure.Policy{}))
	res := call(t, connect(t, s, legacyVersion, nil), "echo", map[string]any{"context": "test", "subject": secret})
	if strings.Contains(text(res), secret) {
		t.Errorf("the secret reached the client: %s", text(res))
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the secret reached the log:\n%s", logs)
	}
}

func TestCommandsGetTheConfiguredEnvironment(t *testing.T) {
	env := execrunner.NewEnvironment([]string{"FISK_SERVER_TEST=marker", "ANTHROPIC_API_KEY=sk-should-not-pass"}, execrunner.EnvRule{})
	s, _ := newServer(t, Config{Env: env}, fixtureSet(t, exposure.Policy{}))
	out := envelope(t, call(t, connect(t, s, legacyVersion, nil), "env", map[string]any{"context": "test"})).Output
	if !strings.Contains(out, "FISK_SERVER_TEST=marker") || !strings.Contains(out, "LLMFORMAT=1") {
		t.Errorf("environment %q lacks the configured variables", out)
	}
	if strings.Contains(out, "ANTHROPIC_API_KEY") {
		t.Errorf("a credential reached the command: %q", out)
	}
}
