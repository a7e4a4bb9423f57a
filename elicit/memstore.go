package elicit

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"
)

// The memory store's default bounds. An entry costs about 150 bytes, so
// the total is about 20 MiB at most.
const (
	// DefaultReplayCapacity bounds the used, unexpired states one process
	// remembers, over all clients.
	DefaultReplayCapacity = 1 << 17
	// DefaultReplayPerClient bounds those one client can make it remember:
	// 2,048 answers within one expiry (two minutes by default) is 17 a
	// second, far above a person's pace.
	DefaultReplayPerClient = 1 << 11
)

// MemoryOptions configures a MemoryStore. The zero value is the default.
type MemoryOptions struct {
	// Since is when the store began recording: a state issued before it
	// is refused with [ErrIssuedBeforeStart]. Zero means now.
	Since time.Time
	// Capacity bounds the states remembered in all; 0 means
	// DefaultReplayCapacity.
	Capacity int
	// PerClient bounds the states one client (UsedState.Client) can make
	// the store remember; 0 means DefaultReplayPerClient.
	PerClient int
}

// MemoryStore is the ReplayStore of one process: right for a single
// server, wrong for replicas (each has its own record). It is safe for
// concurrent use.
//
// Why it is shaped this way:
//
//   - Every answer is remembered until its state expires, declines
//     included, and never forgotten early: forgetting a live state would let
//     it be answered again. So a full store refuses, it does not evict.
//   - A client can make states at will (every first round issues one) and
//     answer them itself (a decline needs no person), so a single global
//     count would let one client fill the store and have every other
//     client's approval refused. The bound that bites is per client: a
//     client at its share is refused alone. The total is a memory bound
//     only, reached when Capacity/PerClient clients (64 by default) are at
//     their share at once; HTTP sessions are capped by --max-sessions, and
//     a client without a session is its address and token, so clients
//     behind one proxy with one token share one share.
//   - The record starts empty at every start, so a state issued before the
//     start (to this process before a restart, or to another replica with
//     the same key) cannot be checked and is refused; the person is asked
//     again. Replicas that must accept each other's states need a shared
//     store instead.
type MemoryStore struct {
	since     time.Time
	capacity  int
	perClient int

	mu       sync.Mutex
	used     map[string]struct{} // nonces of live entries
	byClient map[string]int      // live entries per client
	queue    expiryQueue         // live entries, soonest expiry first
}

// NewMemoryStore returns an empty store.
func NewMemoryStore(o MemoryOptions) (*MemoryStore, error) {
	if o.Capacity < 0 || o.PerClient < 0 {
		return nil, fmt.Errorf("replay store bounds %d and %d: neither may be negative", o.Capacity, o.PerClient)
	}
	s := &MemoryStore{since: o.Since, capacity: o.Capacity, perClient: o.PerClient,
		used: map[string]struct{}{}, byClient: map[string]int{}}
	if s.since.IsZero() {
		s.since = time.Now()
	}
	// States carry their issue time in whole milliseconds: compare in the
	// same unit, so a state issued in the store's first millisecond counts.
	s.since = time.UnixMilli(s.since.UnixMilli())
	if s.capacity == 0 {
		s.capacity = DefaultReplayCapacity
	}
	if s.perClient == 0 {
		s.perClient = DefaultReplayPerClient
	}
	return s, nil
}

// Use implements ReplayStore.
func (s *MemoryStore) Use(_ context.Context, u UsedState) (bool, error) {
	if u.Issued.Before(s.since) {
		return false, fmt.Errorf("%w (issued %s, started %s)", ErrIssuedBeforeStart,
			u.Issued.UTC().Format(time.RFC3339Nano), s.since.UTC().Format(time.RFC3339Nano))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(u.Now)
	if _, ok := s.used[u.Nonce]; ok {
		return false, nil
	}
	if s.byClient[u.Client] >= s.perClient {
		return false, fmt.Errorf("%w: this client answered %d approvals that have not expired yet, the most one client may; wait for them to expire", ErrReplayStoreFull, s.perClient)
	}
	if len(s.used) >= s.capacity {
		return false, fmt.Errorf("%w: %d approvals answered by all clients have not expired yet; wait for them to expire", ErrReplayStoreFull, s.capacity)
	}
	s.used[u.Nonce] = struct{}{}
	s.byClient[u.Client]++
	heap.Push(&s.queue, entry{nonce: u.Nonce, client: u.Client, expires: u.Expires})
	return true, nil
}

// sweep forgets the entries expired at now; s.mu is held. An expired state
// is refused before the store is consulted, so forgetting it never lets a
// replay through.
func (s *MemoryStore) sweep(now time.Time) {
	for len(s.queue) > 0 && isExpired(s.queue[0].expires, now) {
		e := heap.Pop(&s.queue).(entry)
		delete(s.used, e.nonce)
		if s.byClient[e.client]--; s.byClient[e.client] <= 0 {
			delete(s.byClient, e.client)
		}
	}
}

// Len reports how many used states the store remembers.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.used)
}

type entry struct {
	nonce, client string
	expires       time.Time
}

// expiryQueue is a min-heap of entries by expiry, so a sweep costs the
// entries it forgets, not the entries it keeps.
type expiryQueue []entry

func (q expiryQueue) Len() int           { return len(q) }
func (q expiryQueue) Less(i, j int) bool { return q[i].expires.Before(q[j].expires) }
func (q expiryQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *expiryQueue) Push(x any)        { *q = append(*q, x.(entry)) }
func (q *expiryQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}
