package discovery

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// A search still running on the set a reload replaced uses that set's
// index, but does not put it back in place of the index prepared for the
// set in force, which the next search would otherwise build again.
func TestASearchOfAReplacedSetKeepsTheIndexOfTheSetInForce(t *testing.T) {
	old := fixtureSet(t, exposure.Policy{})
	f, d := newFake(old)
	d.Index(old)
	f.inForce.Store(fixtureSet(t, exposure.Policy{AdditiveTags: []string{"ops:prod"}}))
	prepared := d.Index(f.inForce.Load())
	if len(d.Index(old).Search("echo", 1)) == 0 {
		t.Fatal("the replaced set's own index finds nothing for echo")
	}
	if !d.Built(f.inForce.Load()) || d.Index(f.inForce.Load()) != prepared {
		t.Error("after a search of the replaced set, the kept index is not the prepared one of the set in force")
	}
	if d.Built(old) {
		t.Error("the replaced set's index took the place of the set in force's")
	}
}

// A search result shows a tool's description's first line cut: a tool may
// say a paragraph on it, and a result lists up to 50 tools.
func TestSearchResultsShowAShortLineOfEachTool(t *testing.T) {
	wordy, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name:        "wordy_report",
		Description: "Reports " + strings.Repeat("everything about the report ", 500) + "\nand more",
		InputSchema: map[string]any{"type": "object", "additionalProperties": false},
		Fn:          func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	_, d := newFake(customSet(t, wordy))
	res := callTool(t, d, SearchTools, map[string]any{"query": "report"})
	_, line, _ := strings.Cut(text(res), "\n- wordy_report: ")
	line, _, _ = strings.Cut(line, "\n")
	if res.IsError || line == "" || len(line) > maxResultLine+100 || !strings.Contains(line, "…") {
		t.Errorf("the result shows %d bytes of the tool's line: %.120q", len(line), text(res))
	}
}

// An executor hands the tool and arguments it names to the server's call
// path, and answers by itself, running nothing, only arguments it cannot
// read; search and describe answer by themselves, each call recording
// its outcome once.
func TestExecutorsHandTheirCallToRunAndTheOthersAnswerThemselves(t *testing.T) {
	f, d := newFake(fixtureSet(t, exposure.Policy{}))
	for _, c := range []struct {
		tool    string
		args    any
		isError bool
	}{
		{CallReadOnlyTool, map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, false},
		{CallTool, map[string]any{"name": "touch"}, false},
		{CallTool, map[string]any{"arguments": map[string]any{}}, true},
		{SearchTools, map[string]any{"query": "echo"}, false},
		{SearchTools, map[string]any{}, true},
		{DescribeTools, map[string]any{"names": []string{"echo"}}, false},
		{DescribeTools, map[string]any{"names": []string{"no_such_tool"}}, true},
	} {
		if res := callTool(t, d, c.tool, c.args); res.IsError != c.isError {
			t.Errorf("%s %v: isError %v, want %v: %s", c.tool, c.args, res.IsError, c.isError, text(res))
		}
	}
	if want := []string{"call_read_only_tool echo", "call_tool touch"}; !slices.Equal(f.ran, want) {
		t.Errorf("ran %v, want %v", f.ran, want)
	}
	if want := []Outcome{InvalidArguments, OK, InvalidArguments, OK, UnknownTools}; !slices.Equal(f.outcomes, want) {
		t.Errorf("recorded %v, want %v", f.outcomes, want)
	}
}

// The read-only executor refuses a tool that is not read-only; the other
// executor and a direct call refuse nothing.
func TestOnlyTheReadOnlyExecutorRefusesAToolThatIsNotReadOnly(t *testing.T) {
	set := fixtureSet(t, exposure.Policy{})
	echo, _ := set.Lookup("echo")
	touch, _ := set.Lookup("touch")
	var direct *Executor
	for _, c := range []struct {
		name    string
		via     *Executor
		tool    exposure.Tool
		refused bool
	}{
		{"call_read_only_tool", readOnlyExecutor, echo, false},
		{"call_read_only_tool", readOnlyExecutor, touch, true},
		{"call_tool", anyExecutor, touch, false},
		{"a direct call", direct, touch, false},
	} {
		if err := c.via.Check(c.tool); (err != nil) != c.refused {
			t.Errorf("%s checking %s: %v, want refused %v", c.name, c.tool.Name(), err, c.refused)
		}
	}
}
