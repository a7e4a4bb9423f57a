package elicit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reloadingAsker answers yes, but only after the tools' fingerprint has
// changed, as when the application is reloaded while the person reads the
// question.
func reloadingAsker(f *fixture, to string) *asker {
	return &asker{answer: func(context.Context) (*mcp.ElicitResult, error) {
		f.setFingerprint(to)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}
}

func TestApprovalOfAToolThatChangedWhileAskingIsRefused(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			f.setFingerprint("definition and binary v1")
			cs := f.connect(v, reloadingAsker(f, "definition and binary v2").options())

			res := call(t, cs, "rm", map[string]any{"name": "orders"})

			f.wantRefused(res, CodeToolChanged, "the tool changed while the user was being asked")
			if !strings.Contains(text(res), "call the tool again") {
				t.Errorf("refusal %q does not tell the model to call again", text(res))
			}
		})
	}
}

func TestApprovalOfAnUnchangedToolWithAFingerprintRuns(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			f.setFingerprint("definition and binary v1")
			cs := f.connect(v, reloadingAsker(f, "definition and binary v1").options())

			res := call(t, cs, "rm", map[string]any{"name": "orders"})

			if res.IsError || f.ran.Load() != 1 {
				t.Fatalf("result = %q (isError %v), ran %d times; want one run", text(res), res.IsError, f.ran.Load())
			}
		})
	}
}

func TestManualRetryAfterTheToolChangedIsRefused(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.setFingerprint("v1")
	cs := f.manual()
	args := map[string]any{"name": "orders"}
	first := call(t, cs, "rm", args)
	f.setFingerprint("v2")

	res := retry(t, cs, "rm", args, mcp.InputResponseMap{onlyID(t, first): yes()}, first.RequestState)

	f.wantRefused(res, CodeToolChanged, "the tool changed")
}

func TestMiddlewareReportsTheCallItRefused(t *testing.T) {
	timer := newFakeTimer()
	clock := newFakeClock()
	f := newFixture(t, fixtureOptions{timer: timer, clock: clock})
	asked := make(chan struct{})
	a := &asker{answer: func(ctx context.Context) (*mcp.ElicitResult, error) {
		close(asked)
		return f.unanswered(ctx)
	}}
	cs := f.connect(legacyVersion, a.options())
	go func() {
		<-asked
		clock.Advance(90 * time.Second)
		timer.fire()
	}()

	f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeTimeout, "did not answer")

	got := f.reported()
	if len(got) != 1 {
		t.Fatalf("the middleware reported %d refusals, want 1", len(got))
	}
	r := got[0]
	if r.Decision.Code != CodeTimeout || r.Tool != "rm" || r.CommandLine != "fixture rm -- orders" {
		t.Errorf("report = %+v, want the timeout of rm with its command line", r)
	}
	if r.Client == nil || r.Client.Name != "test-client" || r.Client.Version != "v0.0.1" {
		t.Errorf("report names client %+v, want test-client v0.0.1", r.Client)
	}
	if r.Duration != 90*time.Second {
		t.Errorf("report duration = %s, want the 90s the call waited", r.Duration)
	}
}
