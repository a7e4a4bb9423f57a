package natspending

import (
	"context"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fisk-mcp/fisk-mcp/browser"
)

// hub is a Store's one watch over the bucket, kept while anything waits
// in this process, fanning each change out to the waits of its key: a
// waiting approval costs a map entry, not a consumer on the server, so
// however many wait, a replica holds one consumer (and one more for
// each List in progress).
type hub struct {
	mu    sync.Mutex
	run   *watchRun // nil while nothing waits
	waits map[string]map[waiter]struct{}
	// joined, when set (by tests), is called once a wait has joined.
	joined func()
}

// waiter receives its key's outcome, or the error that ends the wait.
type waiter chan result

type result struct {
	outcome browser.Outcome
	err     error
}

// watchRun is one watch over the bucket, from its start to its end.
type watchRun struct {
	ready chan struct{} // closed once started, or failing to (err set)
	done  chan struct{} // closed when it has ended (err set)
	err   error
	stop  context.CancelFunc
}

// join adds a wait for id, starting the watch if none runs, and returns
// once the watch is running: every change from then on reaches w.
func (h *hub) join(ctx context.Context, s *Store, kv jetstream.KeyValue, id string) (waiter, *watchRun, error) {
	w := make(waiter, 1)
	h.mu.Lock()
	run := h.run
	if run == nil {
		wctx, stop := context.WithCancel(context.Background())
		run = &watchRun{ready: make(chan struct{}), done: make(chan struct{}), stop: stop}
		h.run = run
		go h.serve(wctx, s, kv, run)
	}
	if h.waits == nil {
		h.waits = map[string]map[waiter]struct{}{}
	}
	if h.waits[id] == nil {
		h.waits[id] = map[waiter]struct{}{}
	}
	h.waits[id][w] = struct{}{}
	h.mu.Unlock()
	select {
	case <-run.ready:
	case <-ctx.Done():
		h.leave(id, w)
		return nil, nil, ctx.Err()
	}
	select {
	case <-run.done:
		h.leave(id, w)
		return nil, nil, run.err
	default:
	}
	if h.joined != nil {
		h.joined()
	}
	return w, run, nil
}

// leave removes a wait; the last one stops the watch.
func (h *hub) leave(id string, w waiter) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.waits[id], w)
	if len(h.waits[id]) == 0 {
		delete(h.waits, id)
	}
	if len(h.waits) == 0 && h.run != nil {
		h.run.stop()
		h.run = nil
	}
}

// serve runs the watch until it is stopped or lost, delivering each
// change to the waits of its key; a lost watch ends every wait on it.
func (h *hub) serve(ctx context.Context, s *Store, kv jetstream.KeyValue, run *watchRun) {
	w, lost, err := s.watch(ctx, kv, jetstream.AllKeys, jetstream.UpdatesOnly())
	end := func(err error) {
		h.mu.Lock()
		if h.run == run {
			h.run = nil
		}
		h.mu.Unlock()
		run.err = err
		close(run.done)
	}
	if err != nil {
		end(err)
		close(run.ready)
		return
	}
	defer w.Stop()
	close(run.ready)
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				end(s.failed(ctx, nats.ErrConnectionClosed))
				return
			}
			if e != nil {
				h.deliver(s, e)
			}
		case <-lost:
			end(s.conn.Unavailable(nats.ErrDisconnected))
			return
		case <-ctx.Done():
			end(ctx.Err())
			return
		}
	}
}

// deliver tells the waits of e's key how their approval ended, if it did.
func (h *hub) deliver(s *Store, e jetstream.KeyValueEntry) {
	id := e.Key()
	h.mu.Lock()
	ws := h.waits[id]
	if len(ws) == 0 {
		h.mu.Unlock()
		return
	}
	var res result
	if e.Operation() != jetstream.KeyValuePut {
		res.err = unknown(id)
	} else if r, err := s.decode(id, e.Value()); err != nil {
		res.err = err
	} else if r.Outcome != "" {
		res.outcome = r.Outcome
	} else {
		h.mu.Unlock()
		return
	}
	for w := range ws {
		select {
		case w <- res:
		default: // told already
		}
	}
	h.mu.Unlock()
}
