package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Gemini CLI adds wait_for_previous to every tool's arguments. A call
// carrying it at the top level is served as if it were absent: a gated
// call is asked and run (on 2026-07-28 over two rounds, the retry carrying
// the key too), its question and log line never show the key, and the
// discovery tools take it beside their own arguments; inside an executor's
// arguments it is the tool's, and refused like any unknown argument, as is
// any other key the schema does not have.
func TestCallsCarryingWaitForPreviousAreServedAsWithoutIt(t *testing.T) {
	const added = "wait_for_previous"
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			c := client{protocol: proto, elicit: answer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, &asked, &mu)}
			s := startStdio(t, c, fixtureBin)
			path := filepath.Join(t.TempDir(), "touched")
			if res := s.call(t, "touch", args("path", path, added, true)); res.IsError || !exists(path) {
				t.Fatalf("the gated call did not run: %s", text(res))
			}
			if rec := s.log.callRecord(t, "touch"); rec["decision"] != "approved" {
				t.Errorf("decision %v", rec["decision"])
			}
			rounds := 0
			for _, r := range s.log.records() {
				if r["msg"] == "tool call" && r["tool"] == "touch" {
					rounds++
					if argv := fmt.Sprint(r["argv"]); strings.Contains(argv, added) || !strings.Contains(argv, path) {
						t.Errorf("round %d logs %q", rounds, argv)
					}
				}
			}
			if want := map[string]int{"2025-11-25": 1, "2026-07-28": 2}[proto]; want != 0 && rounds != want {
				t.Errorf("%d rounds logged, want %d", rounds, want)
			}
			mu.Lock()
			if len(asked) != 1 || strings.Contains(asked[0], added) {
				t.Errorf("asked %q", asked)
			}
			mu.Unlock()
			removed := 0
			for _, r := range s.log.records() {
				if r["level"] == "DEBUG" && strings.Contains(fmt.Sprint(r["msg"]), "the client adds to every tool") {
					removed++
				}
			}
			// Both rounds pass the handler: on 2025-11-25 the SDK calls it
			// again within the request, with the answer.
			if removed != 2 {
				t.Errorf("the removal is logged %d times at debug, want once a round (2)", removed)
			}

			if res := s.call(t, "echo", args("subject", "s", added, false)); res.IsError {
				t.Errorf("an ungated call carrying %s: %s", added, text(res))
			}
			if res := s.call(t, "echo", args("subject", "s", "wait_for_next", false)); !res.IsError || !strings.Contains(text(res), "wait_for_next") {
				t.Errorf("another unknown key is not refused: %s", text(res))
			}
		})
	}

	t.Run("deferred", func(t *testing.T) {
		s := startStdio(t, client{protocol: protocols[len(protocols)-1]}, "--defer", "always", fixtureBin)
		for _, tc := range []struct {
			tool    string
			args    map[string]any
			refused string
		}{
			{"search_tools", map[string]any{"query": "echo", added: true}, ""},
			{"describe_tools", map[string]any{"names": []string{"echo"}, added: true}, ""},
			{"call_read_only_tool", map[string]any{"name": "echo", "arguments": args("subject", "s"), added: true}, ""},
			{"call_tool", map[string]any{"name": "echo", "arguments": args("subject", "s"), added: true}, ""},
			{"call_tool", map[string]any{"name": "echo", "arguments": args("subject", "s", added, true)}, added},
		} {
			res := s.call(t, tc.tool, tc.args)
			if got := res.IsError; got != (tc.refused != "") || tc.refused != "" && !strings.Contains(text(res), tc.refused) {
				t.Errorf("%s %v: isError %v: %s", tc.tool, tc.args, got, text(res))
			}
		}
	})
}
