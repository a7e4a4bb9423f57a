package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answer returns an elicitation handler that records the question and
// replies with res.
func answer(res *mcp.ElicitResult, asked *[]string, mu *sync.Mutex) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		*asked = append(*asked, r.Params.Message)
		mu.Unlock()
		return res, nil
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestApprovalDecidesWhetherAGatedCommandRuns proves each answer by the
// file touch creates: only an explicit approval runs the command.
func TestApprovalDecidesWhetherAGatedCommandRuns(t *testing.T) {
	cases := []struct {
		name     string
		answer   *mcp.ElicitResult // nil: the client cannot elicit
		runs     bool
		decision string
		says     string
	}{
		{"accept", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, true, "approved", ""},
		{"accept without approving", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, false, "declined", "declined"},
		{"decline", &mcp.ElicitResult{Action: "decline"}, false, "declined", "declined"},
		{"cancel", &mcp.ElicitResult{Action: "cancel"}, false, "cancelled", ""},
		{"no capability", nil, false, "no_capability", ""},
	}
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					var mu sync.Mutex
					var asked []string
					c := client{protocol: proto}
					if tc.answer != nil {
						c.elicit = answer(tc.answer, &asked, &mu)
					}
					s := startStdio(t, c, "--name", "e2e-server", fixtureBin)
					path := filepath.Join(t.TempDir(), "touched")
					res := s.call(t, "touch", args("path", path))

					if exists(path) != tc.runs {
						t.Fatalf("file exists = %v, want %v; result: %s", exists(path), tc.runs, text(res))
					}
					if res.IsError == tc.runs {
						t.Errorf("isError = %v: %s", res.IsError, text(res))
					}
					if tc.says != "" && !strings.Contains(text(res), tc.says) {
						t.Errorf("result %q does not say %q", text(res), tc.says)
					}
					if rec := s.log.callRecord(t, "touch"); rec["decision"] != tc.decision {
						t.Errorf("decision = %v, want %s (%v)", rec["decision"], tc.decision, rec)
					}
					mu.Lock()
					defer mu.Unlock()
					if tc.answer != nil {
						if len(asked) != 1 {
							t.Fatalf("asked %d times", len(asked))
						}
						for _, want := range []string{"e2e-server", path, "ai:confirm", "touch"} {
							if !strings.Contains(asked[0], want) {
								t.Errorf("the question does not show %q:\n%s", want, asked[0])
							}
						}
					}
				})
			}
		})
	}
}

func TestConfirmTagGatesTheOperatorsTools(t *testing.T) {
	s := startStdio(t, client{protocol: modernProtocol}, "--confirm-tag", "ops:prod", fixtureBin)
	marker := filepath.Join(t.TempDir(), "deployed")
	res := s.call(t, "deploy", args("release", "v1", "marker", marker))
	if !res.IsError || exists(marker) {
		t.Fatalf("an ops:prod tool ran without approval: %s", text(res))
	}
	rec := s.log.callRecord(t, "deploy")
	if rec["decision"] != "no_capability" {
		t.Errorf("call log = %v", rec)
	}
	// The operator is told which setting would let the person approve.
	if d, _ := rec["decision_detail"].(string); !strings.Contains(d, "--approval elicit-or-browser") {
		t.Errorf("the call log's decision_detail %q does not name the setting that would let the person approve", d)
	}
}

// TestUnansweredApprovalTimesOut: on the legacy protocol the server waits
// for the person and gives up after --elicit-timeout; on 2026-07-28 the
// client asks, and an answer arriving after the signed state expired is
// refused.
func TestUnansweredApprovalTimesOut(t *testing.T) {
	const wait = 300 * time.Millisecond
	t.Run(legacyProtocol, func(t *testing.T) {
		released := make(chan struct{})
		t.Cleanup(func() { close(released) })
		s := startStdio(t, client{protocol: legacyProtocol, elicit: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			select { // a person who never answers
			case <-ctx.Done():
			case <-released:
			}
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}}, "--elicit-timeout", wait.String(), fixtureBin)
		path := filepath.Join(t.TempDir(), "touched")
		res := s.call(t, "touch", args("path", path))
		if !res.IsError || exists(path) {
			t.Fatalf("ran without an answer: %s", text(res))
		}
		if rec := s.log.callRecord(t, "touch"); rec["decision"] != "timeout" {
			t.Errorf("call log = %v", rec)
		}
	})
	// On 2026-07-28 the client holds the question: a late answer is not
	// believed, and the person is asked again.
	t.Run(modernProtocol, func(t *testing.T) {
		var asked atomic.Int32
		s := startStdio(t, client{protocol: modernProtocol, elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if asked.Add(1) == 1 {
				time.Sleep(2 * wait) // a person who answers after the state expired
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		}}, "--elicit-timeout", wait.String(), fixtureBin)
		path := filepath.Join(t.TempDir(), "touched")
		res := s.call(t, "touch", args("path", path))
		if res.IsError || !exists(path) || asked.Load() != 2 {
			t.Fatalf("result %s, asked %d; want asked again, and a run on the answer in time", text(res), asked.Load())
		}
		s.log.reasked(t, "touch", "expired")
		if rec := s.log.callRecord(t, "touch"); rec["decision"] != "approved" {
			t.Errorf("call log = %v, want the fresh question's answer approved", rec)
		}
	})
}
