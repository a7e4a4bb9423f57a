package natspending

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fisk-mcp/fisk-mcp/browser"
)

// Decide implements browser.Store: it reads the entry and writes it back
// decided only if its revision is still the one read. A write that loses
// to another (a decision or a delete, from any replica) reads again, and
// then finds the approval decided or gone.
func (s *Store) Decide(ctx context.Context, id string, o browser.Outcome) (bool, error) {
	return s.DecideBy(ctx, id, o, "")
}

// DecideBy is Decide, recording by as who decided
// (browser.ApproverStore).
func (s *Store) DecideBy(ctx context.Context, id string, o browser.Outcome, by string) (bool, error) {
	if o == "" {
		return false, errors.New("deciding an approval needs an outcome")
	}
	if !validID(id) {
		return false, nil // never a key, so never put
	}
	kv, _, err := s.conn.KeyValue(ctx)
	if err != nil {
		return false, err
	}
	for {
		ok, again, err := s.decideOnce(ctx, kv, id, o, by)
		if !again {
			return ok, err
		}
	}
}

// decideOnce is one read and compare-and-set; again says the write lost a
// race and must be tried anew.
func (s *Store) decideOnce(ctx context.Context, kv jetstream.KeyValue, id string, o browser.Outcome, by string) (ok, again bool, err error) {
	octx, cancel := s.op(ctx)
	defer cancel()
	e, err := kv.Get(octx, id)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return false, false, nil
	case err != nil:
		return false, false, s.failed(ctx, err)
	}
	r, err := s.decode(id, e.Value())
	if err != nil {
		return false, false, err
	}
	if r.Outcome != "" {
		return false, false, nil
	}
	r.Outcome, r.By = o, by
	value, err := json.Marshal(r)
	if err != nil {
		return false, false, err
	}
	_, err = kv.Update(octx, id, value, e.Revision())
	switch {
	case err == nil:
		return true, false, nil
	case errors.Is(err, jetstream.ErrKeyRevisionMismatch):
		return false, true, nil
	}
	return false, false, s.failed(ctx, err)
}

// DecidedBy returns who decided id (browser.ApproverStore): "" when
// nobody was named, or it is undecided or gone.
func (s *Store) DecidedBy(ctx context.Context, id string) (string, error) {
	if !validID(id) {
		return "", nil
	}
	kv, _, err := s.conn.KeyValue(ctx)
	if err != nil {
		return "", err
	}
	octx, cancel := s.op(ctx)
	defer cancel()
	e, err := kv.Get(octx, id)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return "", nil
	case err != nil:
		return "", s.failed(ctx, err)
	}
	r, err := s.decode(id, e.Value())
	return r.By, err
}

// Wait implements browser.Store. It joins the store's one watch over the
// bucket (see hub), which the server pushes every change to, then reads
// the entry as it is: a decision taken before is read, one taken after is
// pushed; nothing polls. It returns when the entry is decided, deleted or
// expired, when ctx ends, and when the connection is lost, since nothing
// would arrive while it is down.
func (s *Store) Wait(ctx context.Context, id string) (browser.Outcome, error) {
	if !validID(id) {
		return "", unknown(id)
	}
	kv, _, err := s.conn.KeyValue(ctx)
	if err != nil {
		return "", err
	}
	w, run, err := s.hub.join(ctx, s, kv, id)
	if err != nil {
		return "", err
	}
	defer s.hub.leave(id, w)
	octx, cancel := s.op(ctx)
	e, err := kv.Get(octx, id)
	cancel()
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return "", unknown(id)
	case err != nil:
		return "", s.failed(ctx, err)
	}
	r, err := s.decode(id, e.Value())
	if err != nil {
		return "", err
	}
	if r.Outcome != "" {
		return r.Outcome, nil
	}
	select {
	case res := <-w:
		return res.outcome, res.err
	case <-run.done:
		return "", run.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// watch starts a watch on keys that lasts until ctx ends or the
// connection is lost (the watch's context ends it), and that must start
// within the time of one request.
func (s *Store) watch(ctx context.Context, kv jetstream.KeyValue, keys string, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, <-chan struct{}, error) {
	lost := s.conn.Lost()
	wctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-lost:
			cancel()
		case <-wctx.Done():
		}
	}()
	late := time.AfterFunc(s.conn.OpTimeout(), cancel)
	w, err := kv.Watch(wctx, keys, opts...)
	if !late.Stop() || err != nil {
		cancel()
		select {
		case <-lost:
			return nil, nil, s.conn.Unavailable(nats.ErrDisconnected)
		default:
		}
		if err == nil {
			err = context.DeadlineExceeded
		}
		return nil, nil, s.failed(ctx, err)
	}
	return stopper{w, cancel}, lost, nil
}

// stopper is a watch that also ends its context when stopped.
type stopper struct {
	jetstream.KeyWatcher
	cancel context.CancelFunc
}

func (w stopper) Stop() error {
	defer w.cancel()
	return w.KeyWatcher.Stop()
}

// decode reads the value of id's key.
func (s *Store) decode(id string, value []byte) (record, error) {
	var r record
	if err := json.Unmarshal(value, &r); err != nil {
		return r, fmt.Errorf("approval %s in the approval store %s does not decode (%v): the bucket must hold fisk-mcp's pending approvals only; give the approval store a bucket of its own", id, s.Where(), err)
	}
	return r, nil
}
