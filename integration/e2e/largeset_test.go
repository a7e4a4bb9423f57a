package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// largeSet serves the fixture under n prefixes: n*16 tools, enough to pass
// any client's cap without a large app.
func largeSet(n int) []string {
	var apps []string
	for i := range n {
		apps = append(apps, fmt.Sprintf("f%d=%s", i, fixtureBin))
	}
	return apps
}

// deferralDoc is the "deferral" object of tools --json.
type deferralDoc struct {
	Mode      string `json:"mode"`
	Threshold int    `json:"threshold"`
	Served    int    `json:"served"`
	Deferred  bool   `json:"deferred"`
	Lists     struct {
		Full     listWeight `json:"full"`
		Deferred listWeight `json:"deferred"`
	} `json:"tools_list"`
}

type listWeight struct {
	Tools int `json:"tools"`
	Bytes int `json:"bytes"`
}

// listBytes is what a served tools/list result weighs, as tools --json
// counts it: the JSON of its tools, as the client read it off the wire.
func listBytes(t *testing.T, args ...string) (tools, bytes int) {
	t.Helper()
	messages := newLogBuffer()
	s := startStdio(t, client{protocol: modernProtocol, messages: messages}, args...)
	res, err := s.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(messages.String()) {
		var msg struct {
			Result struct {
				Tools json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if rest, ok := strings.CutPrefix(line, "read: "); ok && json.Unmarshal([]byte(rest), &msg) == nil && msg.Result.Tools != nil {
			return len(res.Tools), len(msg.Result.Tools)
		}
	}
	t.Fatal("the client read no tools/list response")
	return 0, 0
}

// The tools command says whether the settings defer the set, and weighs
// each mode's tools/list exactly as a server with those settings sends it.
func TestToolsWeighsTheListOfEachModeAsTheServerSendsIt(t *testing.T) {
	fullTools, fullBytes := listBytes(t, "--defer", "never", fixtureBin)
	deferredTools, deferredBytes := listBytes(t, "--defer", "always", fixtureBin)
	if deferredBytes >= fullBytes {
		t.Fatalf("deferred list %d bytes, full %d", deferredBytes, fullBytes)
	}
	for _, tc := range []struct {
		args     []string
		deferred bool
		line     string
	}{
		{nil, false, "tools/list: listed in full (--defer auto: 16 served, at most the threshold of 40)"},
		{[]string{"--defer-threshold", "3"}, true, "tools/list: deferred (--defer auto: 16 served, more than the threshold of 3)"},
		{[]string{"--defer", "always"}, true, "tools/list: deferred (--defer always)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := runFiskMCP(t, nil, append(append([]string{"tools", "--json"}, tc.args...), fixtureBin)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var doc struct {
				Deferral deferralDoc `json:"deferral"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			d := doc.Deferral
			if d.Deferred != tc.deferred || d.Served != len(fixtureTools) {
				t.Errorf("deferral = %+v, want deferred %v over %d tools", d, tc.deferred, len(fixtureTools))
			}
			if d.Lists.Full != (listWeight{fullTools, fullBytes}) || d.Lists.Deferred != (listWeight{deferredTools, deferredBytes}) {
				t.Errorf("weights = %+v, the server sends full %d tools in %d bytes, deferred %d in %d",
					d.Lists, fullTools, fullBytes, deferredTools, deferredBytes)
			}

			table, errOut, code := runFiskMCP(t, nil, append(append([]string{"tools"}, tc.args...), fixtureBin)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range []string{tc.line, fmt.Sprintf("full:     %d tools, %d bytes", fullTools, fullBytes), fmt.Sprintf("deferred: %d tools, %d bytes", deferredTools, deferredBytes)} {
				if !strings.Contains(table, want) {
					t.Errorf("table lacks %q:\n%s", want, table)
				}
			}
		})
	}
}

// clientEntry is the server entry of a JSON client configuration.
type clientEntry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func configEntry(t *testing.T, client string, args ...string) (clientEntry, string) {
	t.Helper()
	out, errOut, code := runFiskMCP(t, nil, append([]string{"config", client}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]map[string]clientEntry
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, servers := range doc {
		for _, e := range servers {
			return e, errOut
		}
	}
	t.Fatalf("no server entry: %s", out)
	return clientEntry{}, ""
}

// A client that caps its tools gets a set above the cap deferred, whatever
// the person's --defer said, and a set under it as given; the configured
// server then lists no more tools than the client takes.
func TestConfigDefersASetAboveTheClientsCap(t *testing.T) {
	large := largeSet(9) // 144 tools, above every cap
	for _, tc := range []struct {
		client string
		cap    int
	}{{"vscode", 88}, {"cursor", 80}, {"windsurf", 50}} {
		t.Run(tc.client, func(t *testing.T) {
			small, note := configEntry(t, tc.client, fixtureBin)
			// No note on deferral; the one on approval is another matter.
			if slices.ContainsFunc(small.Args, func(a string) bool { return strings.HasPrefix(a, "--defer") }) || strings.Contains(note, "defer") {
				t.Errorf("16 tools under a cap of %d: args %q, stderr %q", tc.cap, small.Args, note)
			}

			kept, note := configEntry(t, tc.client, large...)
			if slices.ContainsFunc(kept.Args, func(a string) bool { return strings.HasPrefix(a, "--defer") }) {
				t.Errorf("the default already defers past 40 tools, yet args %q", kept.Args)
			}
			if !strings.Contains(note, fmt.Sprintf("note: the server serves 144 tools, more than the %d", tc.cap)) || !strings.Contains(note, "--defer auto, past 40 tools") {
				t.Errorf("stderr does not say the set is deferred: %s", note)
			}
			if n, _ := listBytes(t, kept.Args[1:]...); n > tc.cap {
				t.Errorf("the configured server lists %d tools, over the cap of %d", n, tc.cap)
			}

			forced, note := configEntry(t, tc.client, append([]string{"--defer", "never"}, large...)...)
			if !slices.Contains(forced.Args, "--defer=always") || slices.Contains(forced.Args, "--defer=never") {
				t.Errorf("args %q: want --defer=always in place of --defer=never", forced.Args)
			}
			if !strings.Contains(note, "passes --defer=always, replacing --defer never") {
				t.Errorf("stderr does not say what replaced the person's choice: %s", note)
			}
			if n, _ := listBytes(t, forced.Args[1:]...); n > tc.cap {
				t.Errorf("the configured server lists %d tools, over the cap of %d", n, tc.cap)
			}
		})
	}
}

// Claude Code defers every MCP tool itself: its line lists every tool
// (--defer=never), and the hint says how to defer where its search is off.
func TestClaudeCodeConfigurationLeavesDeferralToClaudeCode(t *testing.T) {
	out, errOut, code := runFiskMCP(t, nil, append([]string{"config", "claude-code"}, largeSet(9)...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	words := strings.Fields(out)
	sep := slices.Index(words, "--")
	if sep < 0 || !slices.Contains(words[sep:], "--defer=never") {
		t.Fatalf("line %q does not pass --defer=never", out)
	}
	for _, want := range []string{"all 144 tools (--defer=never)", "ENABLE_TOOL_SEARCH=false", "replace --defer=never with --defer=auto"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("hint lacks %q:\n%s", want, errOut)
		}
	}
	if n, _ := listBytes(t, words[sep+3:]...); n != 144 {
		t.Errorf("the configured server lists %d tools, want all 144", n)
	}

	out, errOut, code = runFiskMCP(t, nil, "config", "claude-code", "--defer", "auto", fixtureBin)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "--defer=auto") || strings.Contains(out, "--defer=never") || !strings.Contains(errOut, "keeps your --defer auto") {
		t.Errorf("a chosen mode is not kept: %q\n%s", out, errOut)
	}
}
