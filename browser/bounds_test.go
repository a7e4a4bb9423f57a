package browser

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

func TestTooManyWaitingIsRefusedAtOnceSayingTheBound(t *testing.T) {
	type rig struct {
		// wait starts an Ask that waits; ask is one that is refused.
		wait func(t *testing.T, ctx context.Context, r Request) <-chan askResult
		ask  func(ctx context.Context, r Request) (Outcome, error)
	}
	cases := map[string]func(t *testing.T) rig{
		"local": func(t *testing.T) rig {
			lr := newLocalRig(t, DefaultHold)
			lr.l.waiting = waiting{perClient: 2, total: 3}
			return rig{
				wait: func(t *testing.T, ctx context.Context, r Request) <-chan askResult {
					_, out := lr.ask(t, ctx, r)
					return out
				},
				ask: lr.l.Ask,
			}
		},
		"shared": func(t *testing.T) rig {
			store := newNotifyStore()
			s, err := NewShared(SharedOptions{Token: []byte(approverToken), Store: store, Logger: slog.New(slog.NewTextHandler(&testsupport.LogBuffer{}, nil)),
				PendingPerClient: 2, PendingTotal: 3})
			if err != nil {
				t.Fatal(err)
			}
			return rig{
				wait: func(t *testing.T, ctx context.Context, r Request) <-chan askResult {
					return askShared(t, ctx, s, store, r)
				},
				ask: s.Ask,
			}
		},
	}
	for name, start := range cases {
		t.Run(name, func(t *testing.T) {
			rig := start(t)
			req := func(id, caller string) Request {
				r := sharedRequest(id)
				r.Caller = caller
				return r
			}
			refused := func(r Request, perClient bool, limit int, text string) {
				t.Helper()
				o, err := rig.ask(t.Context(), r)
				var tm *elicit.TooManyWaiting
				if !errors.As(err, &tm) || tm.PerClient != perClient || tm.Limit != limit || !strings.Contains(err.Error(), text) {
					t.Fatalf("Ask(%s) = %q, %v; want refused: %s", r.ID, o, err, text)
				}
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			first := rig.wait(t, ctx, req("a1", "a"))
			rig.wait(t, t.Context(), req("a2", "a"))
			refused(req("a3", "a"), true, 2, "too many approvals are waiting for this client (2, the most one client may have waiting); answer or let some expire, then call again")
			rig.wait(t, t.Context(), req("b1", "b"))
			refused(req("c1", "c"), false, 3, "too many approvals are waiting (3, ")
			// One ends: its client may ask again.
			cancel()
			if o := outcome(t, first); o != Cancelled {
				t.Fatalf("outcome %q, want cancelled", o)
			}
			rig.wait(t, t.Context(), req("a4", "a"))
		})
	}
}

func TestTheDefaultBoundsAreNeverHitByAPerson(t *testing.T) {
	var w waiting
	for range DefaultPendingPerClient {
		if err := w.take("a"); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.take("a"); err == nil || !strings.Contains(err.Error(), "(64, ") {
		t.Fatalf("take over the default = %v, want refused at 64", err)
	}
	if err := w.take("b"); err != nil {
		t.Fatalf("another client is refused: %v", err)
	}
}
