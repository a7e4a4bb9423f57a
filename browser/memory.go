package browser

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// MemoryStore is a [Store] for one process: a Shared page without
// replicas, and tests. Its zero value is not usable; call NewMemoryStore.
type MemoryStore struct {
	mu  sync.Mutex
	m   map[string]*memEntry
	seq uint64
	now func() time.Time
}

type memEntry struct {
	p       Pending
	seq     uint64 // insertion order, for approvals created in the same instant
	outcome Outcome
	by      string        // who decided, when named
	done    chan struct{} // closed on the decision or on Delete
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{m: map[string]*memEntry{}, now: time.Now}
}

// Put records p; its ID must not be held already.
func (s *MemoryStore) Put(_ context.Context, p Pending) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[p.ID]; ok {
		return fmt.Errorf("approval %q is already in the store; each approval needs a new ID", p.ID)
	}
	s.seq++
	s.m[p.ID] = &memEntry{p: p, seq: s.seq, done: make(chan struct{})}
	return nil
}

// List returns the undecided approvals whose deadline has not passed,
// oldest first.
func (s *MemoryStore) List(context.Context) ([]Pending, error) {
	s.mu.Lock()
	now := s.now()
	var es []*memEntry
	for _, e := range s.m {
		if e.outcome == "" && (e.p.Deadline.IsZero() || now.Before(e.p.Deadline)) {
			es = append(es, e)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(es, func(a, b *memEntry) int {
		return cmp.Or(a.p.Created.Compare(b.p.Created), cmp.Compare(a.seq, b.seq))
	})
	ps := make([]Pending, len(es))
	for i, e := range es {
		ps[i] = e.p
	}
	return ps, nil
}

// Decide records o for id unless it is decided already.
func (s *MemoryStore) Decide(ctx context.Context, id string, o Outcome) (bool, error) {
	return s.DecideBy(ctx, id, o, "")
}

// DecideBy is Decide, recording who decided ([ApproverStore]).
func (s *MemoryStore) DecideBy(_ context.Context, id string, o Outcome, by string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[id]
	if !ok || e.outcome != "" {
		return false, nil
	}
	e.outcome, e.by = o, by
	close(e.done)
	return true, nil
}

// DecidedBy returns who decided id, "" when nobody was named.
func (s *MemoryStore) DecidedBy(_ context.Context, id string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.m[id]; ok {
		return e.by, nil
	}
	return "", nil
}

// Wait blocks until id is decided, deleted (ErrUnknown) or ctx ends.
func (s *MemoryStore) Wait(ctx context.Context, id string) (Outcome, error) {
	s.mu.Lock()
	e, ok := s.m[id]
	s.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("waiting for approval %q: %w", id, ErrUnknown)
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.outcome == "" {
		return "", fmt.Errorf("approval %q was deleted while waiting: %w", id, ErrUnknown)
	}
	return e.outcome, nil
}

// Delete forgets id; a Wait on it returns ErrUnknown.
func (s *MemoryStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.m[id]; ok {
		delete(s.m, id)
		if e.outcome == "" {
			close(e.done)
		}
	}
	return nil
}
