package elicit

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestExplicitApprovalRunsTheCommandOnce(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			serverAsked := countServerElicitations(f.srv)
			a := answering("accept", map[string]any{"approve": true})
			cs := f.connect(v, a.options())

			res := call(t, cs, "rm", map[string]any{"name": "orders"})

			if res.IsError || text(res) != "ran orders" {
				t.Fatalf("result = %q (isError %v), want the command's output", text(res), res.IsError)
			}
			if n := f.ran.Load(); n != 1 {
				t.Errorf("the command ran %d times, want 1", n)
			}
			if got, want := f.codes(), []Code{CodePending, CodeApproved}; !slices.Equal(got, want) {
				t.Errorf("decisions = %v, want %v", got, want)
			}
			if n := len(a.asked()); n != 1 {
				t.Errorf("the person was asked %d times, want 1", n)
			}
			// Older versions are asked by the server (the SDK's middleware),
			// 2026-07-28 by the client's own retry loop.
			wantServer := map[string]int32{legacyVersion: 1, mrtrVersion: 0}[v]
			if n := serverAsked.Load(); n != wantServer {
				t.Errorf("server sent elicitation/create %d times, want %d", n, wantServer)
			}
		})
	}
}

// countServerElicitations counts elicitation/create requests the server sends.
func countServerElicitations(srv *mcp.Server) *atomic.Int32 {
	var n atomic.Int32
	srv.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "elicitation/create" {
				n.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	return &n
}

func TestAnythingButApprovalRefusesAndDoesNotRun(t *testing.T) {
	tests := []struct {
		name   string
		answer *mcp.ElicitResult
		code   Code
		want   string
	}{
		{"decline", &mcp.ElicitResult{Action: "decline"}, CodeDeclined, "the user declined; do not retry"},
		{"cancel", &mcp.ElicitResult{Action: "cancel"}, CodeCancelled, "you may ask again"},
		{"accept with approve=false", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, CodeDeclined, "the user declined; do not retry"},
		{"accept without content", &mcp.ElicitResult{Action: "accept"}, CodeError, "not a yes/no"},
	}
	for _, v := range versions {
		for _, tt := range tests {
			t.Run(v+"/"+tt.name, func(t *testing.T) {
				f := newFixture(t, fixtureOptions{})
				a := &asker{answer: func(context.Context) (*mcp.ElicitResult, error) { return tt.answer, nil }}
				cs := f.connect(v, a.options())

				f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), tt.code, tt.want)
			})
		}
	}
}

// The SDK client validates an answer against the requested schema before
// sending it, so a non-boolean from a Go client never reaches the server: on
// older versions the server's elicitation fails, on 2026-07-28 the client's
// own retry does. Either way nothing runs. (A non-boolean that does reach
// the server is covered by TestNonBooleanAnswerIsRefused.)
func TestFailedElicitationRefusesAndDoesNotRun(t *testing.T) {
	answers := map[string]func(context.Context) (*mcp.ElicitResult, error){
		"client error": func(context.Context) (*mcp.ElicitResult, error) { return nil, errors.New("no person here") },
		"non-boolean": func(context.Context) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": "yes"}}, nil
		},
	}
	for name, answer := range answers {
		t.Run(legacyVersion+"/"+name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			cs := f.connect(legacyVersion, (&asker{answer: answer}).options())

			f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeError, "asking the user for approval failed")
		})
		t.Run(mrtrVersion+"/"+name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			cs := f.connect(mrtrVersion, (&asker{answer: answer}).options())

			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rm", Arguments: map[string]any{"name": "orders"}})
			if err == nil {
				t.Error("CallTool succeeded, want the client's own elicitation error")
			}
			if n := f.ran.Load(); n != 0 {
				t.Errorf("the command ran %d times, want 0", n)
			}
		})
	}
}

func TestClientWithoutFormElicitationIsRefusedWithoutAsking(t *testing.T) {
	urlOnly := &asker{answer: func(context.Context) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}
	clients := map[string]*mcp.ClientOptions{
		"no elicitation": nil,
		"url elicitation only": {
			ElicitationHandler: urlOnly.handle,
			Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		},
	}
	for _, v := range versions {
		for name, opts := range clients {
			t.Run(v+"/"+name, func(t *testing.T) {
				f := newFixture(t, fixtureOptions{})
				cs := f.connect(v, opts)

				f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeNoCapability, "cannot ask a person")
				if n := len(urlOnly.asked()); n != 0 {
					t.Errorf("the client was asked %d times, want 0", n)
				}
			})
		}
	}
}

// unanswered is an elicitation nobody answers: it returns only when the
// server gives up, either by cancelling the request (notifications/cancelled
// is best effort: over HTTP it can be lost when the tools/call stream closes
// first) or, as the gate reports, by refusing the call. The fallback is a
// bound on a broken gate, not a synchronisation: if it fires, the tool runs
// and the test fails.
func (f *fixture) unanswered(ctx context.Context) (*mcp.ElicitResult, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-f.gaveUp:
		return nil, errors.New("the server gave up")
	case <-time.After(30 * time.Second):
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}
}

func TestLegacyWaitForAPersonIsBoundedByTheTimeout(t *testing.T) {
	f := newFixture(t, fixtureOptions{gate: Options{Timeout: 20 * time.Millisecond}})
	cs := f.connect(legacyVersion, (&asker{answer: f.unanswered}).options())

	f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeTimeout, "did not answer the approval request within 20ms")
}

func TestLegacyTimeoutFiringBeforeTheAnswerRefuses(t *testing.T) {
	timer := newFakeTimer()
	f := newFixture(t, fixtureOptions{timer: timer})
	asked := make(chan struct{})
	a := &asker{answer: func(ctx context.Context) (*mcp.ElicitResult, error) {
		close(asked)
		return f.unanswered(ctx)
	}}
	cs := f.connect(legacyVersion, a.options())
	go func() {
		<-asked
		timer.fire()
	}()

	f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeTimeout, "did not answer")
}

func TestLegacyCallCancelledWhileAskingDoesNotRun(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	a := &asker{answer: func(hctx context.Context) (*mcp.ElicitResult, error) {
		cancel() // the client gives up on the tools/call while the person is asked
		return f.unanswered(hctx)
	}}
	cs := f.connect(legacyVersion, a.options())

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rm", Arguments: map[string]any{"name": "orders"}}); err == nil {
		t.Fatal("CallTool succeeded after the client cancelled it")
	}
	select {
	case <-f.gaveUp:
	case <-time.After(30 * time.Second):
		t.Fatal("the gate never reported the abandoned call")
	}
	if d := f.last(); d.Code != CodeError || !strings.Contains(d.Detail, "cancelled") {
		t.Errorf("decision = %s (%s), want an error naming the cancellation", d.Code, d.Detail)
	}
	if n := f.ran.Load(); n != 0 {
		t.Errorf("the command ran %d times, want 0", n)
	}
}

func TestApprovedCommandIsNotBoundedByTheGateTimeout(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			timer := newFakeTimer()
			f := newFixture(t, fixtureOptions{timer: timer})
			var runErr error
			f.run = func(ctx context.Context) {
				timer.fire() // the gate's deadline passes while the command runs
				runErr = ctx.Err()
			}
			cs := f.connect(v, answering("accept", map[string]any{"approve": true}).options())

			res := call(t, cs, "rm", map[string]any{"name": "orders"})

			if res.IsError || f.ran.Load() != 1 {
				t.Fatalf("result = %q, ran %d; want one run", text(res), f.ran.Load())
			}
			if runErr != nil {
				t.Errorf("the command's context was cancelled by the gate timeout: %v", runErr)
			}
		})
	}
}

// A late answer past the signed expiry: on older protocol versions the
// server asked within the call and refuses; on 2026-07-28 the client holds
// the question, and a slow person is asked again.
func TestLateAnswerPastTheSignedExpiry(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			clock := newFakeClock()
			f := newFixture(t, fixtureOptions{clock: clock, timer: newFakeTimer(), gate: Options{Timeout: time.Minute}})
			var answers atomic.Int32
			a := &asker{answer: func(context.Context) (*mcp.ElicitResult, error) {
				if answers.Add(1) == 1 {
					clock.Advance(time.Minute) // only the first answer is late
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			}}
			cs := f.connect(v, a.options())

			res := call(t, cs, "rm", map[string]any{"name": "orders"})

			if v == legacyVersion {
				f.wantRefused(res, CodeExpired, "expired")
				return
			}
			if res.IsError || f.ran.Load() != 1 || len(a.asked()) != 2 {
				t.Fatalf("result = %q, ran %d, asked %d; want asked again and one run", text(res), f.ran.Load(), len(a.asked()))
			}
			if got := f.codes(); !slices.Equal(got, []Code{CodePending, CodeExpired, CodeApproved}) {
				t.Errorf("decisions = %v, want pending, expired (asked again), approved", got)
			}
		})
	}
}

func TestGateWithoutItsMiddlewareRefusesLegacyClientsWithoutAsking(t *testing.T) {
	f := newFixture(t, fixtureOptions{noMiddleware: true})
	a := answering("accept", map[string]any{"approve": true})
	cs := f.connect(legacyVersion, a.options())

	f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeError, "cannot ask for approval")
	if !strings.Contains(f.last().Detail, "AddReceivingMiddleware") {
		t.Errorf("detail %q does not tell the operator how to fix it", f.last().Detail)
	}
	if n := len(a.asked()); n != 0 {
		t.Errorf("the client was asked %d times, want 0", n)
	}
}

func TestGateWithoutItsMiddlewareStillServesMultiRoundTripClients(t *testing.T) {
	f := newFixture(t, fixtureOptions{noMiddleware: true})
	cs := f.connect(mrtrVersion, answering("accept", map[string]any{"approve": true}).options())

	if res := call(t, cs, "rm", map[string]any{"name": "orders"}); res.IsError || f.ran.Load() != 1 {
		t.Fatalf("result = %q, ran %d; want one run", text(res), f.ran.Load())
	}
}

// The SDK installs its own multi-round-trip middleware in NewServer, and
// AddReceivingMiddleware wraps what is already there. The gate's middleware
// is therefore outermost: the context of the SDK's elicitation/create is the
// one the gate's middleware made. This proves it on the wire.
func TestGateMiddlewareWrapsTheSDKsLegacyElicitation(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	var sawRound bool
	f.srv.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "elicitation/create" {
				_, sawRound = ctx.Value(roundKey{}).(*round)
			}
			return next(ctx, method, req)
		}
	})
	cs := f.connect(legacyVersion, answering("accept", map[string]any{"approve": true}).options())

	call(t, cs, "rm", map[string]any{"name": "orders"})

	if !sawRound {
		t.Error("the SDK's elicitation/create did not run inside the gate middleware's context")
	}
	if f.ran.Load() != 1 {
		t.Errorf("the command ran %d times, want 1", f.ran.Load())
	}
}

// A legacy client that presents an answer of its own is not believed: the
// server asks the person itself, and only that answer counts.
func TestLegacyClientCannotSupplyAnAnswerItWasNeverAsked(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	// A state signed by this gate, obtained on a 2026-07-28 session.
	manual := f.connect(mrtrVersion, &mcp.ClientOptions{
		ElicitationHandler: answering("accept", nil).handle,
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
	first := call(t, manual, "rm", map[string]any{"name": "orders"})
	id := onlyID(t, first)
	a := answering("decline", nil)
	legacy := f.connect(legacyVersion, a.options())

	res, err := legacy.CallTool(t.Context(), &mcp.CallToolParams{
		Name:           "rm",
		Arguments:      map[string]any{"name": "orders"},
		InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}},
		RequestState:   first.RequestState,
	})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	f.wantRefused(res, CodeDeclined, "declined")
	if n := len(a.asked()); n != 1 {
		t.Errorf("the legacy client was asked %d times, want 1", n)
	}
	if got := f.codes(); !slices.Equal(got, []Code{CodePending, CodeForged, CodeDeclined}) {
		t.Errorf("decisions = %v, want pending (the first session), forged (asked again), declined", got)
	}
}

func TestPromptNamesServerCommandToolAndTrigger(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{gate: Options{ServerName: "nats-prod"}})
			a := answering("decline", nil)
			cs := f.connect(v, a.options())

			call(t, cs, "purge", map[string]any{"name": "ORDERS"})

			asked := a.asked()
			if len(asked) != 1 {
				t.Fatalf("asked %d times, want 1", len(asked))
			}
			for _, want := range []string{`"nats-prod"`, "\n    fixture purge -- ORDERS\n", "Tool: purge", "tag: ai:confirm"} {
				if !strings.Contains(asked[0], want) {
					t.Errorf("prompt %q does not contain %q", asked[0], want)
				}
			}
		})
	}
}

func TestPromptEscapesControlCharactersANSIAndNewlines(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{gate: Options{ServerName: "evil\x1b]0;title\a"}})
			a := answering("decline", nil)
			cs := f.connect(v, a.options())

			spoof := "x\x1b[2K\rfixture rm -- harmless\nApprove? yes\u202eexe.txt\x00"
			call(t, cs, "rm", map[string]any{"name": spoof})

			asked := a.asked()
			if len(asked) != 1 {
				t.Fatalf("asked %d times, want 1", len(asked))
			}
			msg := asked[0]
			for _, raw := range []string{"\x1b", "\r", "\u202e", "\x00", "\a", "\nApprove? yes"} {
				if strings.Contains(msg, raw) {
					t.Errorf("prompt contains raw %q: %q", raw, msg)
				}
			}
			want := `fixture rm -- x\x1b[2K\rfixture rm -- harmless\nApprove? yes\u{202e}exe.txt\x00`
			if !strings.Contains(msg, want) {
				t.Errorf("prompt %q does not show the escaped command %q", msg, want)
			}
			if !strings.Contains(msg, `"evil\x1b]0;title\x07"`) {
				t.Errorf("prompt %q does not show the escaped server name", msg)
			}
		})
	}
}

func onlyID(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.NeedsInput() || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("first round = %+v, want one input request and a state", res)
	}
	for id := range res.InputRequests {
		return id
	}
	return ""
}
