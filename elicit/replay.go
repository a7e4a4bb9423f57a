package elicit

import (
	"context"
	"errors"
	"time"

	"github.com/fisk-mcp/fisk-mcp/telemetry"
)

// ReplayStore is the record of used request states: what makes an approval
// single-use. The gate consults it once per authentic, unexpired, matching
// answer (declines included: a declined state answered again with accept
// must not run), after every other check and before the answer is
// interpreted, so nothing runs unless the store confirmed a fresh record.
//
// Replicas that share a state key must share one store, or a state can be
// presented once to each of them ([MemoryStore] is per process; the
// natsstore package is shared).
type ReplayStore interface {
	// Use records u.Nonce as used until u.Expires, atomically: of all
	// calls with one nonce, across everything sharing the store, exactly
	// one returns fresh. A non-nil error means the use could not be
	// recorded or checked, and the gate refuses (fails closed) with the
	// error's text as the reason; an error wrapping
	// [ErrIssuedBeforeStart] makes the gate ask the person again instead.
	Use(ctx context.Context, u UsedState) (fresh bool, err error)
}

// UsedState is one answered request state, as the gate hands it to a
// ReplayStore.
type UsedState struct {
	Nonce   string    // the state's nonce, 32 hex digits
	Issued  time.Time // when the state was signed
	Expires time.Time // when it stops being accepted
	Now     time.Time // the gate's clock at the answer, before Expires
	// Client is who presented the answer (Prompt.Client): a store bounds
	// what one client can make it hold.
	Client string
}

// ErrIssuedBeforeStart is wrapped by a store's error for a state issued
// before the store began recording: it cannot tell whether the state was
// used. The gate asks the person again; nothing runs.
var ErrIssuedBeforeStart = errors.New("the approval was issued before this server started keeping its record of used approvals")

// ErrReplayStoreFull is wrapped by a store's error when recording the use
// would exceed a bound: the answer is refused rather than forgetting a
// used state early, which would reopen it.
var ErrReplayStoreFull = errors.New("the record of used approvals is full")

// isExpired is the one definition of expiry, shared by the state check and
// the memory store's sweep.
func isExpired(expires, now time.Time) bool { return !now.Before(expires) }

// use records u in the gate's replay store, inside a span of its own when
// the call is traced: the store may be a NATS server away.
func (g *Gate) use(ctx context.Context, u UsedState) (fresh bool, err error) {
	ctx, span := telemetry.Start(ctx, "replay store write")
	fresh, err = g.replay.Use(ctx, u)
	if span.IsRecording() {
		if err != nil {
			telemetry.Fail(span, string(CodeUnavailable))
		}
		span.End()
	}
	return fresh, err
}
