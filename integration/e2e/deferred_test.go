package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// discovery is what a deferred fixture lists, in order: the discovery
// tools, then deploy, its one ai:no_defer command.
var discovery = []string{"search_tools", "describe_tools", "call_read_only_tool", "call_tool", "deploy"}

// listJSON returns the names of one tools/list page, in order, and the
// page's tools as JSON.
func listJSON(t *testing.T, cs *mcp.ClientSession) ([]string, string) {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, tool.Name)
	}
	raw, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return out, string(raw)
}

func TestDeferredListIsIdenticalOverStdioAndHTTPForEverySession(t *testing.T) {
	h := startHTTP(t, "", "--defer", "always")
	var lists []string
	for _, proto := range protocols {
		for range 2 {
			s := startStdio(t, client{protocol: proto}, "--defer", "always", fixtureBin)
			_, raw := listJSON(t, s.cs)
			lists = append(lists, raw)
		}
		if proto == legacyProtocol { // stateful HTTP takes the legacy protocol
			for range 2 {
				_, raw := listJSON(t, h.connect(t, client{protocol: proto}))
				lists = append(lists, raw)
			}
		}
	}
	names, _ := listJSON(t, h.connect(t, client{protocol: legacyProtocol}))
	if !slices.Equal(names, discovery) {
		t.Fatalf("deferred list %v, want %v", names, discovery)
	}
	for i, l := range lists {
		if l != lists[0] {
			t.Errorf("list %d differs from list 0:\n%s\n%s", i, l, lists[0])
		}
	}
}

func TestExecutorsOverTheBinaryGateAndRunAsDirectCalls(t *testing.T) {
	cases := []struct {
		name     string
		answer   *mcp.ElicitResult
		runs     bool
		decision string
	}{
		{"approve", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, true, "approved"},
		{"decline", &mcp.ElicitResult{Action: "decline"}, false, "declined"},
		{"no capability", nil, false, "no_capability"},
	}
	for _, proto := range protocols {
		for _, tc := range cases {
			t.Run(proto+"/"+tc.name, func(t *testing.T) {
				var mu sync.Mutex
				var asked []string
				c := client{protocol: proto}
				if tc.answer != nil {
					c.elicit = answer(tc.answer, &asked, &mu)
				}
				s := startStdio(t, c, "--name", "e2e-server", "--defer", "always", fixtureBin)

				// The read-only executor refuses touch before anyone is asked.
				refused := filepath.Join(t.TempDir(), "refused")
				res := s.call(t, "call_read_only_tool", map[string]any{"name": "touch", "arguments": args("path", refused)})
				if !res.IsError || exists(refused) {
					t.Fatalf("call_read_only_tool ran touch: %s", text(res))
				}

				path := filepath.Join(t.TempDir(), "touched")
				res = s.call(t, "call_tool", map[string]any{"name": "touch", "arguments": args("path", path)})
				if exists(path) != tc.runs || res.IsError == tc.runs {
					t.Fatalf("file exists = %v, want %v: %s", exists(path), tc.runs, text(res))
				}
				rec := s.log.callRecord(t, "touch")
				if rec["decision"] != "not_asked" || rec["result"] != "not_read_only" || rec["executor"] != "call_read_only_tool" {
					t.Errorf("the refusal's line: %v", rec)
				}
				rec = s.log.nthCall(t, "touch", 2)
				if rec["decision"] != tc.decision || rec["executor"] != "call_tool" || rec["kind"] != "application" {
					t.Errorf("the call's line: %v", rec)
				}
				mu.Lock()
				defer mu.Unlock()
				if tc.answer != nil && (len(asked) != 1 || !strings.Contains(asked[0], path) || !strings.Contains(asked[0], "ai:confirm")) {
					t.Errorf("asked %q", asked)
				}
			})
		}
	}
}

func TestAutoDeferralFlipsOnReload(t *testing.T) {
	dir := t.TempDir()
	app := installApp(t, dir, "tool", syntheticApp(2))
	changed := make(chan struct{}, 16)
	s := startStdio(t, client{protocol: legacyProtocol, listChanged: func() { changed <- struct{}{} }},
		"--watch", "--defer-threshold", "2", app)
	if got, _ := listJSON(t, s.cs); !slices.Equal(got, []string{"group0000_cmd0000", "group0000_cmd0001"}) {
		t.Fatalf("2 tools at a threshold of 2: %v", got)
	}

	installApp(t, dir, "tool", syntheticApp(3))
	s.published(t)
	await(t, changed, "list_changed once the set grew past the threshold")
	if got, _ := listJSON(t, s.cs); !slices.Equal(got, discovery[:4]) {
		t.Fatalf("3 tools over a threshold of 2: %v", got)
	}
	// A deferred tool is still called directly by its name.
	if res := s.call(t, "group0000_cmd0002", args("name", "x")); res.IsError {
		t.Errorf("direct call of a deferred tool: %s", text(res))
	}

	installApp(t, dir, "tool", syntheticApp(1))
	s.log.waitRecords(t, "for the second reload", func(recs []map[string]any) map[string]any {
		var seen []map[string]any
		for _, r := range recs {
			if r["msg"] == "tool set published" {
				seen = append(seen, r)
			}
		}
		if len(seen) == 2 {
			return seen[1]
		}
		return nil
	})
	await(t, changed, "list_changed once the set shrank")
	if got, _ := listJSON(t, s.cs); !slices.Equal(got, []string{"group0000_cmd0000"}) {
		t.Fatalf("1 tool under a threshold of 2: %v", got)
	}
}

func TestDeferredToolIsCalledDirectlyByName(t *testing.T) {
	s := startStdio(t, client{protocol: modernProtocol}, "--defer", "always", fixtureBin)
	res := s.call(t, "echo", args("subject", "x"))
	if res.IsError || !strings.Contains(envelope(t, res).Output, `"subject":"x"`) {
		t.Errorf("direct call of a deferred tool: %s", text(res))
	}
	if _, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "admin_purge", Arguments: args()}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("a denied tool called by name while deferred: %v", err)
	}
}
