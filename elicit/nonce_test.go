package elicit

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestQuestionAndAnswerNameTheSameApproval(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			cs := f.connect(v, answering("accept", map[string]any{"approve": true}).options())

			if res := call(t, cs, "rm", map[string]any{"name": "orders"}); res.IsError {
				t.Fatalf("result = %q, want the command run", text(res))
			}

			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.decisions) != 2 {
				t.Fatalf("decisions = %v, want the question and the approval", f.decisions)
			}
			asked, approved := f.decisions[0], f.decisions[1]
			if len(asked.Nonce) != 2*nonceBytes || approved.Nonce != asked.Nonce {
				t.Errorf("nonces %q (pending) and %q (approved), want one approval named by both", asked.Nonce, approved.Nonce)
			}
		})
	}
}

func TestMiddlewareReportsItsRefusalToTheContextBeforeOnDecision(t *testing.T) {
	f := newFixture(t, fixtureOptions{gate: Options{Timeout: 20 * time.Millisecond}})
	var reported []Refusal
	// An outer middleware, as a serving surface installs it after the gate's.
	f.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return next(ReportRefusals(ctx, func(r Refusal) {
				if len(f.reported()) != 0 {
					t.Error("OnDecision was told before the context's report")
				}
				reported = append(reported, r)
			}), method, req)
		}
	})
	cs := f.connect(legacyVersion, (&asker{answer: f.unanswered}).options())

	f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeTimeout, "did not answer")

	if len(reported) != 1 || reported[0].Decision.Code != CodeTimeout || reported[0].Tool != "rm" {
		t.Fatalf("reported %+v, want the one timeout refusal of rm", reported)
	}
	f.mu.Lock()
	asked := f.decisions[0]
	f.mu.Unlock()
	if n := reported[0].Decision.Nonce; len(n) != 2*nonceBytes || n != asked.Nonce {
		t.Errorf("refusal nonce %q, want the nonce of the question asked (%q)", n, asked.Nonce)
	}
}
