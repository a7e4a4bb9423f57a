package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errDraining refuses calls that arrive while the server shuts down.
var errDraining = errors.New("the server is shutting down and accepts no new calls; retry against a running server")

// drain refuses new calls, lets running ones finish for up to timeout, then
// cancels the rest and waits for them.
func (s *Server) drain(timeout time.Duration) {
	running := s.calls.inFlight()
	if running > 0 {
		s.log.Info("draining in-flight calls", "calls", running, "timeout", timeout)
	}
	cancelled, done := s.calls.drain(timeout, s.cfg.KillGrace+drainSlack)
	if cancelled > 0 {
		s.log.Warn("cancelled calls still running after the drain timeout", "calls", cancelled)
	}
	if !done {
		s.log.Error("calls did not return after being cancelled", "calls", s.calls.inFlight())
	}
}

// awaitCancelled refuses new calls and waits for the running ones, which
// their transport has already cancelled, to return.
func (s *Server) awaitCancelled() {
	if _, done := s.calls.drain(0, s.cfg.KillGrace+drainSlack); !done {
		s.log.Error("calls did not return after being cancelled", "calls", s.calls.inFlight())
	}
}

// drainSlack is the time a cancelled call has, beyond the kill grace, to
// return after its process group was killed.
const drainSlack = 5 * time.Second

// callTracker counts in-flight calls so shutdown can let them finish, and
// owns the context that cancels whatever is still running when the drain
// time is up. Handler contexts come from the SDK's session and do not end on
// shutdown by themselves, so every call also watches stop.
type callTracker struct {
	mu       sync.Mutex
	n        int
	idle     chan struct{} // closed while n == 0
	draining chan struct{} // closed once the drain has begun
	drained  chan struct{} // closed once the drain has returned

	stop   context.Context
	cancel context.CancelFunc

	// sessions holds the scope of every session with calls running or
	// being ended (see endSession).
	sessions map[*mcp.ServerSession]*sessionScope
}

func newCallTracker() *callTracker {
	idle := make(chan struct{})
	close(idle)
	stop, cancel := context.WithCancel(context.Background())
	return &callTracker{idle: idle, draining: make(chan struct{}), drained: make(chan struct{}), stop: stop, cancel: cancel,
		sessions: map[*mcp.ServerSession]*sessionScope{}}
}

// begin registers a call of session (nil when the transport has none).
// The returned context ends with ctx, when the drain gives up, or when the
// session is ended; end must be called when the call returns.
func (t *callTracker) begin(ctx context.Context, session *mcp.ServerSession) (context.Context, func(), error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.draining:
		return nil, nil, errDraining
	default:
	}
	scope, err := t.scope(session)
	if err != nil {
		return nil, nil, err
	}
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.n++
	ctx, cancel := context.WithCancel(ctx)
	unwatch := context.AfterFunc(t.stop, cancel)
	unwatchSession := scope.watch(cancel)
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			unwatch()
			unwatchSession()
			cancel()
			t.mu.Lock()
			defer t.mu.Unlock()
			t.leave(session, scope)
			t.n--
			if t.n == 0 {
				close(t.idle)
			}
		})
	}, nil
}

// drainStarted returns a channel closed once the drain has begun.
func (t *callTracker) drainStarted() <-chan struct{} { return t.draining }

// drainEnded returns a channel closed once the drain has returned: every
// call has returned or been given up on. Their responses may still be on
// their way to the client.
func (t *callTracker) drainEnded() <-chan struct{} { return t.drained }

// inFlight reports the number of running calls.
func (t *callTracker) inFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// idleChan returns a channel closed once no call is running.
func (t *callTracker) idleChan() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.idle
}

// drain refuses new calls, lets running ones finish for up to timeout, then
// cancels the rest (which kills their process groups) and waits up to grace
// for them to return. It reports how many calls it had to cancel, and
// whether every call has returned.
func (t *callTracker) drain(timeout, grace time.Duration) (cancelled int, done bool) {
	t.mu.Lock()
	select {
	case <-t.draining:
	default:
		close(t.draining)
	}
	t.mu.Unlock()
	defer t.endDrain()

	if waitClosed(t.idleChan(), timeout) {
		return 0, true
	}
	cancelled = t.inFlight()
	t.cancel()
	return cancelled, waitClosed(t.idleChan(), grace)
}

func (t *callTracker) endDrain() {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.drained:
	default:
		close(t.drained)
	}
}

// waitClosed waits for ch to close, at most d.
func waitClosed(ch <-chan struct{}, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ch:
		return true
	case <-timer.C:
		return false
	}
}

// answerTracker is the set of requests a client has sent that have not yet
// been answered on the wire. The call tracker knows when a handler is done,
// but the SDK writes the handler's response after it returns, and closing
// the session discards every response not yet written; shutdown waits for
// this set to empty before it closes the session.
type answerTracker struct {
	mu      sync.Mutex
	pending map[jsonrpc.ID]string // the method of each request
	idle    chan struct{}         // closed while pending is empty
}

func newAnswerTracker() *answerTracker {
	idle := make(chan struct{})
	close(idle)
	return &answerTracker{pending: map[jsonrpc.ID]string{}, idle: idle}
}

// expect records a request read from the client. It must be called before
// the SDK can see the request, so its response cannot come first.
func (a *answerTracker) expect(id jsonrpc.ID, method string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.pending) == 0 {
		a.idle = make(chan struct{})
	}
	a.pending[id] = method
}

// answered records that the response to id has been written in full, and
// returns the method of the request it answers. Responses to requests never
// expected (a malformed request answered with a null id) are ignored, and
// have no method.
func (a *answerTracker) answered(id jsonrpc.ID) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	method, ok := a.pending[id]
	if !ok {
		return ""
	}
	delete(a.pending, id)
	if len(a.pending) == 0 {
		close(a.idle)
	}
	return method
}

// idleChan returns a channel closed once every request read so far has
// been answered.
func (a *answerTracker) idleChan() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.idle
}

// unanswered reports the number of requests still waiting for a response.
func (a *answerTracker) unanswered() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pending)
}
