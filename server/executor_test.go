package server

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// through calls tool directly (via "") or through the executor via.
func through(t *testing.T, cs *mcp.ClientSession, via, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	if via == "" {
		return call(t, cs, tool, args)
	}
	return call(t, cs, via, map[string]any{"name": tool, "arguments": args})
}

func TestExecutorsRunATargetExactlyAsADirectCall(t *testing.T) {
	s, logs := newServer(t, Config{Defer: DeferAlways}, fixtureSet(t, exposure.Policy{}))
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, s, version, nil)
			args := map[string]any{"context": "test", "subject": "hello", "mode": "slow"}
			direct := envelope(t, call(t, cs, "echo", args))
			for _, via := range []string{"call_read_only_tool", "call_tool"} {
				got := envelope(t, through(t, cs, via, "echo", args))
				if got.Command != direct.Command || got.Output != direct.Output || got.ExitCode != direct.ExitCode {
					t.Errorf("%s ran echo as %+v, a direct call as %+v", via, got, direct)
				}
				bad := map[string]any{"context": "test", "mode": "sideways"}
				if a, b := text(through(t, cs, via, "echo", bad)), text(call(t, cs, "echo", bad)); a != b || !strings.Contains(a, "nothing ran") {
					t.Errorf("invalid arguments through %s:\n%s\ndirectly:\n%s", via, a, b)
				}
			}
		})
	}
	var lines int
	for _, r := range logs.records("tool call") {
		if r["executor"] == nil {
			continue
		}
		lines++
		if r["tool"] != "echo" || r["kind"] != "application" {
			t.Errorf("an executor's line names %v (%v), want the real tool echo (application)", r["tool"], r["kind"])
		}
	}
	if lines != 2*2*len(protocolVersions) {
		t.Errorf("%d lines name an executor, want %d", lines, 2*2*len(protocolVersions))
	}
}

func TestReadOnlyExecutorRefusesAWritingToolAndRunsNothing(t *testing.T) {
	s, logs := newServer(t, Config{Defer: DeferAlways}, fixtureSet(t, exposure.Policy{}))
	asked := make(chan string, 4)
	cs := connect(t, s, modernVersion, answering("accept", true, asked))
	path := tempPath(t, "touched")
	res := through(t, cs, "call_read_only_tool", "touch", map[string]any{"context": "test", "path": path})
	if !res.IsError || !strings.Contains(text(res), "call_tool") || exists(t, path) {
		t.Fatalf("call_read_only_tool touch: %s (exists %v)", text(res), exists(t, path))
	}
	if len(asked) != 0 {
		t.Error("the person was asked to approve a call the executor refuses")
	}
	line := logs.records("tool call")[0]
	if line["tool"] != "touch" || line["executor"] != "call_read_only_tool" || line["result"] != "not_read_only" {
		t.Errorf("line %v", line)
	}
}

func TestGatedCallThroughAnExecutorAsksAsADirectCallDoes(t *testing.T) {
	cases := []struct {
		name     string
		opts     func(chan<- string) *mcp.ClientOptions
		runs     bool
		decision string
	}{
		{"approve", func(c chan<- string) *mcp.ClientOptions { return answering("accept", true, c) }, true, "approved"},
		{"decline", func(c chan<- string) *mcp.ClientOptions { return answering("decline", false, c) }, false, "declined"},
		{"no capability", func(chan<- string) *mcp.ClientOptions { return nil }, false, "no_capability"},
	}
	for _, version := range protocolVersions {
		for _, c := range cases {
			for _, via := range []string{"", "call_tool"} {
				t.Run(version+"/"+c.name+"/"+via, func(t *testing.T) {
					s, logs := newServer(t, Config{Name: "fixture-server", Defer: DeferAlways}, fixtureSet(t, exposure.Policy{}))
					asked := make(chan string, 4)
					cs := connect(t, s, version, c.opts(asked))
					path := tempPath(t, "touched")
					res := through(t, cs, via, "touch", map[string]any{"context": "test", "path": path})
					if exists(t, path) != c.runs || res.IsError == c.runs {
						t.Fatalf("ran %v (want %v): %s", exists(t, path), c.runs, text(res))
					}
					if c.decision != "no_capability" {
						q := wait(t, asked, "the question")
						for _, want := range []string{"fixture-server", "touch", path, "ai:confirm"} {
							if !strings.Contains(q, want) {
								t.Errorf("question %q does not name %q", q, want)
							}
						}
					}
					var final map[string]any
					for _, r := range logs.records("tool call") {
						if r["result"] != "input_required" {
							final = r
						}
					}
					if final["tool"] != "touch" || final["decision"] != c.decision || (via != "") != (final["executor"] == via) {
						t.Errorf("line %v, want touch with decision %s", final, c.decision)
					}
				})
			}
		}
	}
}
