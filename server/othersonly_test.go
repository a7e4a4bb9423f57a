package server

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/policy"
)

// A policy that refuses callers the approval of their own calls is kept
// through the client too: the client's person is the caller, so such a
// call is never asked there, and without a page that signs someone else
// in it is refused unrun.
func TestAPolicyThatForbidsApprovingOnesOwnCallIsNotBypassedThroughTheClient(t *testing.T) {
	const everything = `permit (principal == Caller::"local", action, resource);`
	const fourEyes = everything + `
@id("four-eyes")
forbid (principal, action == Action::"approve", resource) when { context.caller == principal };`
	for _, c := range []struct {
		name, policy string
		runs         bool
	}{
		{"the caller may approve its own call", everything, true},
		{"nobody approves their own call", fourEyes, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := policy.Parse("team.cedar", []byte(c.policy), policy.Claims{})
			if err != nil {
				t.Fatal(err)
			}
			s, logs := newServer(t, Config{Name: "fixture-server", Policy: policy.NewCurrent(p)}, fixtureSet(t, exposure.Policy{}))
			asked := make(chan string, 10)
			cs := connect(t, s, modernVersion, answering("accept", true, asked))
			path := tempPath(t, "touched")

			res := call(t, cs, "touch", map[string]any{"context": "test", "path": path})

			if exists(t, path) != c.runs || res.IsError == c.runs {
				t.Fatalf("ran %v, result %q (isError %v); want ran %v", exists(t, path), text(res), res.IsError, c.runs)
			}
			if c.runs {
				return
			}
			if len(asked) != 0 {
				t.Errorf("the caller's own client was asked %d times, want never", len(asked))
			}
			if !strings.Contains(text(res), "someone other than its caller") || !strings.Contains(text(res), "do not retry") {
				t.Errorf("result %q does not say why, and that a retry is futile", text(res))
			}
			recs := logs.records("tool call")
			if len(recs) != 1 || recs[0]["decision"] != string(elicit.CodeNoCapability) || !strings.Contains(recs[0]["decision_detail"].(string), "--approval browser") {
				t.Errorf("call log %v, want one no_capability line naming the settings", recs)
			}
		})
	}
}
