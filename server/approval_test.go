package server

import (
	"context"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answering returns client options whose elicitation handler answers with
// action (and approve, for accept) and records every question.
func answering(action string, approve bool, asked chan<- string) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params.Message
			res := &mcp.ElicitResult{Action: action}
			if action == "accept" {
				res.Content = map[string]any{"approve": approve}
			}
			return res, nil
		},
	}
}

func TestApprovedCallRuns(t *testing.T) {
	s, logs := newServer(t, Config{Name: "fixture-server"}, fixtureSet(t, exposure.Policy{}))
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			asked := make(chan string, 10)
			cs := connect(t, s, version, answering("accept", true, asked))
			path := tempPath(t, "touched")
			res := call(t, cs, "touch", map[string]any{"context": "test", "path": path})
			if res.IsError {
				t.Fatalf("approved call failed: %s", text(res))
			}
			if !exists(t, path) {
				t.Fatal("the approved command did not run")
			}
			question := wait(t, asked, "the approval question")
			for _, want := range []string{"fixture-server", "touch", path, "ai:confirm"} {
				if !strings.Contains(question, want) {
					t.Errorf("question %q does not name %q", question, want)
				}
			}
		})
	}
	var approved int
	for _, rec := range logs.records("tool call") {
		if rec["decision"] == "approved" && rec["result"] == "ok" {
			approved++
		}
		if rec["decision"] == "approved" && rec["approver"] != elicit.ApproverCaller {
			t.Errorf("approved call line names approver %v, want %q (a caller without identity answered)", rec["approver"], elicit.ApproverCaller)
		}
	}
	if approved != len(protocolVersions) {
		t.Errorf("%d approved calls logged, want %d:\n%s", approved, len(protocolVersions), logs)
	}
}

func TestRefusedApprovalRunsNothing(t *testing.T) {
	cases := []struct {
		name    string
		action  string
		approve bool
		says    string
	}{
		{"decline", "decline", false, "declined"},
		{"accept without approval", "accept", false, "declined"},
		{"cancel", "cancel", false, "dismissed"},
	}
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	for _, version := range protocolVersions {
		for _, c := range cases {
			t.Run(version+"/"+c.name, func(t *testing.T) {
				asked := make(chan string, 10)
				cs := connect(t, s, version, answering(c.action, c.approve, asked))
				path := tempPath(t, "touched")
				res := call(t, cs, "touch", map[string]any{"context": "test", "path": path})
				if !res.IsError || !strings.Contains(text(res), c.says) {
					t.Errorf("result = %q (isError %v), want a refusal saying %q", text(res), res.IsError, c.says)
				}
				wait(t, asked, "the approval question")
				if exists(t, path) {
					t.Fatal("the command ran without approval")
				}
			})
		}
	}
}

func TestGatedToolIsRefusedWhenTheClientCannotAsk(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, s, version, nil) // no elicitation handler
			path := tempPath(t, "touched")
			res := call(t, cs, "touch", map[string]any{"context": "test", "path": path})
			if !res.IsError || !strings.Contains(text(res), "cannot ask") {
				t.Errorf("result = %q (isError %v), want a refusal", text(res), res.IsError)
			}
			if exists(t, path) {
				t.Fatal("a gated command ran without approval")
			}
		})
	}
}

func TestOperatorConfirmTagGatesTools(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{ConfirmTags: []string{"ops:prod"}}))
	asked := make(chan string, 10)
	cs := connect(t, s, modernVersion, answering("decline", false, asked))
	marker := tempPath(t, "deployed")
	res := call(t, cs, "deploy", map[string]any{"context": "test", "release": "v1", "marker": marker})
	if !res.IsError {
		t.Errorf("declined deploy succeeded: %s", text(res))
	}
	if q := wait(t, asked, "the approval question"); !strings.Contains(q, "ops:prod") {
		t.Errorf("question %q does not name the operator's tag", q)
	}
	if exists(t, marker) {
		t.Fatal("deploy ran without approval")
	}
}
