package elicit

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Middleware returns the receiving middleware that bounds the wait for a
// person on protocol versions before 2026-07-28. Install it once, with
// Server.AddReceivingMiddleware, on every server that uses the gate; Check
// refuses to ask such clients without it.
//
// Why it is needed: on those versions the SDK's own receiving middleware,
// which NewServer installs first, calls ServerSession.Elicit with the
// tools/call context and then invokes the handler again with that same
// context. Nothing bounds the first step, and bounding the whole context
// would also bound the approved command.
//
// How it works: AddReceivingMiddleware wraps the handler chain built so far,
// so this middleware runs outside the SDK's. It gives each tools/call a
// context of its own. When Check asks, it starts a timer that cancels that
// context after the timeout, which aborts the SDK's pending elicitation;
// when the answer comes back to Check within the timeout, the timer is
// stopped before anything runs, so the command keeps the call's context. An
// elicitation that fails or times out never reaches the handler again: the
// middleware turns the SDK's error into a refusal the model can read
// (reported to the function ReportRefusals put in the context, and through
// Options.OnDecision), instead of a protocol error.
//
// Other methods, and sessions on 2026-07-28 (where the client asks and the
// signed expiry bounds the wait), pass through untouched.
func (g *Gate) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			ss, ok := req.GetSession().(*mcp.ServerSession)
			if !ok || !serverElicits(ss) {
				return next(ctx, method, req)
			}
			start := g.now()
			callCtx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			r := &round{cancel: cancel}
			res, err := next(context.WithValue(callCtx, roundKey{}, r), method, req)
			d, refused := r.finish(err, g.timeout)
			if !refused {
				return res, err
			}
			if ctx.Err() != nil {
				d.Detail = "the client cancelled the call while the user was being asked: " + d.Detail
			}
			rf := r.refusal(d, req, ss, g.now().Sub(start))
			if report, ok := ctx.Value(reportKey{}).(func(Refusal)); ok {
				report(rf)
			}
			if g.onDecision != nil {
				g.onDecision(ctx, rf)
			}
			return d.result(), nil
		}
	}
}

// Refusal describes a tools/call that the Middleware ended on its own, for
// the function ReportRefusals put in the context and for
// Options.OnDecision: the tool handler is not called again after it. It
// holds what the gate knows of the call; anything else (such as the tool's
// kind) is the handler's, which asked. Its Decision carries the nonce of
// the question that went unanswered.
type Refusal struct {
	Decision Decision
	// Tool is the tool the person was asked about, or the request's tool
	// name when the call ended before anyone was asked.
	Tool string
	// CommandLine is the command shown to the person (Prompt.CommandLine,
	// escaped and redacted by the caller); "" when nobody was asked.
	CommandLine string
	// Session is the session's id ("" on a session without one).
	Session string
	// Client is the client as it introduced itself at initialisation; nil
	// when it did not.
	Client *mcp.Implementation
	// Duration runs from the arrival of the tools/call to the refusal.
	Duration time.Duration
}

// ReportRefusals returns a copy of ctx under which the Middleware hands each
// refusal it makes on its own to report, before Options.OnDecision. A
// serving surface whose own receiving middleware wraps the gate's installs
// it per tools/call, so the refusal ends up in the record of the call it
// ends rather than somewhere of its own.
func ReportRefusals(ctx context.Context, report func(Refusal)) context.Context {
	return context.WithValue(ctx, reportKey{}, report)
}

type reportKey struct{}

type roundKey struct{}

// errWaitTimeout is the cause with which a round cancels the SDK's wait.
var errWaitTimeout = errors.New("no answer from the user within the approval timeout")

type phase int

const (
	idle     phase = iota // Check has not asked in this call
	asking                // the SDK is waiting for the person
	answered              // the answer reached Check in time
	late                  // the timer fired first
	finished              // the call returned
)

// round is the state of one tools/call on a session where the SDK asks on
// the server's behalf. Its phase changes only under mu, so the timer and the
// answer cannot both win.
type round struct {
	mu          sync.Mutex
	phase       phase
	state       string
	nonce       string
	tool        string
	commandLine string
	stop        func() bool
	cancel      context.CancelCauseFunc
}

// arm records the question and starts the wait. It fails if this call
// already asked.
func (r *round) arm(state, nonce, tool, commandLine string, wait time.Duration, afterFunc func(time.Duration, func()) func() bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase != idle {
		return false
	}
	r.phase, r.state, r.nonce, r.tool, r.commandLine = asking, state, nonce, tool, commandLine
	r.stop = afterFunc(wait, r.expire)
	return true
}

func (r *round) expire() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase == asking {
		r.phase = late
		r.cancel(errWaitTimeout)
	}
}

type answerResult int

const (
	answerInTime answerResult = iota
	answerLate
	answerUnasked
)

// answer is called by Check when the retry arrives. An answer counts only if
// this very call asked, with this very state. An answer the client sent
// before this call asked anything leaves the round idle, so the call can
// still ask.
func (r *round) answer(state string) answerResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.phase == late:
		return answerLate
	case r.phase == idle:
		return answerUnasked
	case r.phase != asking || state != r.state:
		r.halt()
		return answerUnasked
	}
	r.halt()
	r.phase = answered
	return answerInTime
}

// idle reports whether this call has not asked yet.
func (r *round) idle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase == idle
}

// halt stops the timer; the caller holds mu.
func (r *round) halt() {
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
	r.phase = finished
}

// refusal describes the refused call req of session ss.
func (r *round) refusal(d Decision, req mcp.Request, ss *mcp.ServerSession, took time.Duration) Refusal {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d.Nonce == "" {
		d.Nonce = r.nonce
	}
	out := Refusal{Decision: d, Tool: r.tool, CommandLine: r.commandLine, Session: ss.ID(), Duration: took}
	if call, ok := req.(*mcp.CallToolRequest); ok {
		if out.Tool == "" && call.Params != nil {
			out.Tool = call.Params.Name
		}
		out.Client = call.ClientInfo()
	}
	return out
}

// finish ends the round when the handler chain returned. An error while
// the SDK was asking (the handler was never called again) becomes a refusal;
// any other error is not the gate's and passes through.
func (r *round) finish(err error, wait time.Duration) (Decision, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.phase
	r.halt()
	if err == nil {
		return Decision{}, false
	}
	switch p {
	case late:
		return timedOut(wait), true
	case asking:
		return failed(err.Error()), true
	}
	return Decision{}, false
}
