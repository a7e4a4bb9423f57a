package server

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errDraining refuses calls that arrive while the server shuts down.
var errDraining = errors.New("the server is shutting down and accepts no new calls; retry against a running server")

// callTracker counts in-flight calls so shutdown can let them finish, and
// owns the context that cancels whatever is still running when the drain
// time is up. Handler contexts come from the SDK's session and do not end on
// shutdown by themselves, so every call also watches stop.
type callTracker struct {
	mu       sync.Mutex
	n        int
	idle     chan struct{} // closed while n == 0
	draining chan struct{} // closed once the drain has begun

	stop   context.Context
	cancel context.CancelFunc
}

func newCallTracker() *callTracker {
	idle := make(chan struct{})
	close(idle)
	stop, cancel := context.WithCancel(context.Background())
	return &callTracker{idle: idle, draining: make(chan struct{}), stop: stop, cancel: cancel}
}

// begin registers a call. The returned context ends with ctx or when the
// drain gives up; end must be called when the call returns.
func (t *callTracker) begin(ctx context.Context) (context.Context, func(), error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.draining:
		return nil, nil, errDraining
	default:
	}
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.n++
	ctx, cancel := context.WithCancel(ctx)
	unwatch := context.AfterFunc(t.stop, cancel)
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			unwatch()
			cancel()
			t.mu.Lock()
			defer t.mu.Unlock()
			t.n--
			if t.n == 0 {
				close(t.idle)
			}
		})
	}, nil
}

// drainStarted returns a channel closed once the drain has begun.
func (t *callTracker) drainStarted() <-chan struct{} { return t.draining }

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

	if waitClosed(t.idleChan(), timeout) {
		return 0, true
	}
	cancelled = t.inFlight()
	t.cancel()
	return cancelled, waitClosed(t.idleChan(), grace)
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
