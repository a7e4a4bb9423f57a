package server

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCallLineSaysWhetherTheGateWasConsulted(t *testing.T) {
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, nil)
	cases := []struct {
		name, tool string
		args       map[string]any
		decision   string
		result     string
	}{
		{"ungated tool", "echo", map[string]any{"context": "test", "subject": "x"}, "ungated", "ok"},
		{"ungated tool, invalid arguments", "echo", map[string]any{"bogus": true}, "ungated", "invalid_arguments"},
		{"gated tool, invalid arguments", "touch", map[string]any{"bogus": true}, "not_asked", "invalid_arguments"},
		// The SDK answers names it never registered itself; the handler
		// sees a name the current set no longer has (see
		// TestCallsResolveToolsInTheCurrentSet).
		{"unknown tool", "exit", map[string]any{"context": "test", "code": 0}, "none", "unknown_tool"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.result == "unknown_tool" {
				s.tools.Publish(fixtureSet(t, exposure.Policy{Exclude: mustRegexps(t, "^exit$")}))
			}
			_, _ = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			lines := logs.records("tool call")
			if len(lines) != i+1 {
				t.Fatalf("%d call lines after %d calls:\n%s", len(lines), i+1, logs)
			}
			if got := lines[i]; got["tool"] != c.tool || got["decision"] != c.decision || got["result"] != c.result {
				t.Errorf("call line = %v, want decision %s and result %s", got, c.decision, c.result)
			}
		})
	}
}

// TestGateRefusalLineDescribesTheCall covers the call's line when, on an
// older protocol version, nobody answers in time and the gate's middleware
// ends the call without the handler.
func TestGateRefusalLineDescribesTheCall(t *testing.T) {
	logs := &logBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	gate, err := elicit.NewGate(elicit.Options{Timeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newServer(t, Config{Gate: gate, Logger: logger}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			<-ctx.Done() // the person never answers
			return nil, ctx.Err()
		},
	})
	touched := tempPath(t, "touched")

	res := call(t, cs, "touch", map[string]any{"context": "test", "path": touched})

	if !res.IsError || exists(t, touched) {
		t.Fatalf("result = %q (isError %v), want a refusal and nothing run", text(res), res.IsError)
	}
	var line map[string]any
	for _, rec := range logs.records("tool call") {
		if rec["decision"] == "timeout" {
			line = rec
		}
	}
	if line == nil {
		t.Fatalf("no call line with decision timeout:\n%s", logs)
	}
	want := map[string]any{"tool": "touch", "client": "test-client/1.2.3", "result": "refused"}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("%s = %v, want %v (line %v)", k, line[k], v, line)
		}
	}
	if argv, _ := line["argv"].(string); !strings.Contains(argv, "touch") || !strings.Contains(argv, touched) {
		t.Errorf("argv = %q, want the command line the person was shown", argv)
	}
	if d, ok := line["duration"].(float64); !ok || d <= 0 {
		t.Errorf("duration = %v, want the call's duration", line["duration"])
	}
	if _, ok := line["session"]; !ok {
		t.Errorf("line %v has no session", line)
	}
}

func TestCallLineNamesWhoApproved(t *testing.T) {
	cases := []struct {
		name, caller string
		d            elicit.Decision
		want         string
	}{
		{"an OAuth caller's answer", "alice", elicit.Decision{Code: elicit.CodeApproved, Approver: elicit.ApproverCaller}, "alice"},
		{"an answer without identity", "", elicit.Decision{Code: elicit.CodeApproved, Approver: elicit.ApproverCaller}, elicit.ApproverCaller},
		{"the shared page", "alice", elicit.Decision{Code: elicit.CodeApproved, Approver: "approver token", Via: "browser"}, "approver token"},
		{"a refusal", "alice", elicit.Decision{Code: elicit.CodeMismatch}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &callRecord{caller: c.caller}
			rec.decided(c.d)
			if rec.approver != c.want {
				t.Errorf("approver = %q, want %q", rec.approver, c.want)
			}
		})
	}
}
