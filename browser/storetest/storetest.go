// Package storetest is the conformance suite of [browser.Store]: every
// implementation calls [Run] from its tests, and one that several
// processes share (the replicas of a server) calls [RunShared] as well.
//
// Where the interface leaves a case open, the suite holds every Store to
// one rule, so that the page and the asker need not know which store they
// have:
//   - Put of an ID the store holds fails; the first Put stays.
//   - List returns what Put recorded, field for field (times compared with
//     Equal: a store may drop the monotonic clock reading and the
//     location), oldest Created first; neither a decided approval nor one
//     past its deadline is listed. A zero Deadline is none.
//   - Decide of an ID the store does not hold (never put, or deleted) is
//     ok false with a nil error, like a second decision: IDs come from the
//     page, and one that is stale is not a failure of the store.
//   - Wait on an ID the store does not hold returns, at once, an error
//     wrapping [browser.ErrUnknown]. Wait on a decided approval returns its
//     outcome at once; Wait cancelled returns an error wrapping ctx's.
//   - Delete ends a Wait on the approval with an error wrapping
//     [browser.ErrUnknown]. Delete of an ID the store does not hold returns
//     nil, so forgetting twice is harmless.
//
// Each subtest uses IDs of its own and looks at those only, so open may
// return stores on a backing that other subtests (or other tests) use.
// The suite never sleeps: goroutines are ordered with channels, and every
// call carries a context that turns a hang into a failure, never a timing
// into an assertion.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/browser"
)

// patience bounds every call of the suite, so that a store that hangs
// fails its test instead of the whole run.
const patience = 30 * time.Second

// Run checks the Store that open returns against the rules above. open
// is called once per subtest and returns an empty store or one whose
// other entries the subtest ignores; it registers its own cleanup on t.
func Run(t *testing.T, open func(t *testing.T) browser.Store) {
	t.Run("PutThenListReturnsThePendingOldestFirst", func(t *testing.T) {
		ctx, s := start(t, open)
		now := time.Now()
		newest, oldest, middle := pending(now.Add(2*time.Second)), pending(now), pending(now.Add(time.Second))
		expired, endless := pending(now), pending(now.Add(3*time.Second))
		expired.Deadline, endless.Deadline = now.Add(-time.Second), time.Time{}
		for _, p := range []browser.Pending{newest, expired, endless, oldest, middle} {
			put(ctx, t, s, p)
		}
		wantListed(ctx, t, s, []browser.Pending{oldest, middle, newest, endless}, expired)
	})
	t.Run("PutOfAnIDTheStoreHoldsFails", func(t *testing.T) {
		ctx, s := start(t, open)
		p := pending(time.Now())
		put(ctx, t, s, p)
		again := p
		again.Tool = "another"
		if err := s.Put(ctx, again); err == nil {
			t.Fatal("a second Put of the same ID succeeded")
		}
		wantListed(ctx, t, s, []browser.Pending{p})
	})
	t.Run("TheFirstDecisionWinsAndIsNoLongerListed", func(t *testing.T) {
		ctx, s := start(t, open)
		p, other := pending(time.Now()), pending(time.Now())
		put(ctx, t, s, p)
		put(ctx, t, s, other)
		wantDecide(ctx, t, s, p.ID, browser.Denied, true)
		wantDecide(ctx, t, s, p.ID, browser.Approved, false)
		wantWait(ctx, t, s, p.ID, browser.Denied)
		wantListed(ctx, t, s, []browser.Pending{other}, p)
	})
	t.Run("DecideOfAnUnknownIDIsNotOK", func(t *testing.T) {
		ctx, s := start(t, open)
		wantDecide(ctx, t, s, newID(), browser.Approved, false)
	})
	t.Run("WaitReturnsADecisionMadeWhileWaiting", func(t *testing.T) {
		ctx, s := start(t, open)
		p := pending(time.Now())
		put(ctx, t, s, p)
		waited := waitIn(ctx, s, p.ID)
		wantDecide(ctx, t, s, p.ID, browser.Approved, true)
		wantResult(t, <-waited, browser.Approved)
	})
	t.Run("WaitReturnsTheContextsErrorWhenCancelled", func(t *testing.T) {
		ctx, s := start(t, open)
		p := pending(time.Now())
		put(ctx, t, s, p)
		wctx, cancel := context.WithCancel(ctx)
		waited := waitIn(wctx, s, p.ID)
		cancel()
		if r := <-waited; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("Wait cancelled returned %q, %v; want an error wrapping context.Canceled", r.outcome, r.err)
		}
		// The approval is still pending: cancelling a wait decides nothing.
		wantListed(ctx, t, s, []browser.Pending{p})
	})
	t.Run("WaitOnADecidedApprovalReturnsAtOnce", func(t *testing.T) {
		ctx, s := start(t, open)
		p := pending(time.Now())
		put(ctx, t, s, p)
		wantDecide(ctx, t, s, p.ID, browser.Closed, true)
		wantWait(ctx, t, s, p.ID, browser.Closed)
		wantWait(ctx, t, s, p.ID, browser.Closed)
	})
	t.Run("WaitOnAnUnknownIDFailsWithErrUnknown", func(t *testing.T) {
		ctx, s := start(t, open)
		wantUnknown(ctx, t, s, newID())
	})
	t.Run("DeleteForgetsTheApprovalDecidedOrNot", func(t *testing.T) {
		ctx, s := start(t, open)
		undecided, decided := pending(time.Now()), pending(time.Now())
		put(ctx, t, s, undecided)
		put(ctx, t, s, decided)
		wantDecide(ctx, t, s, decided.ID, browser.Approved, true)
		for _, id := range []string{undecided.ID, decided.ID} {
			if err := s.Delete(ctx, id); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			wantUnknown(ctx, t, s, id)
			wantDecide(ctx, t, s, id, browser.Approved, false)
			if err := s.Delete(ctx, id); err != nil {
				t.Fatalf("a second Delete: %v, want nil", err)
			}
		}
		wantListed(ctx, t, s, nil, undecided, decided)
	})
	t.Run("DeleteEndsAWaitInProgressWithErrUnknown", func(t *testing.T) {
		ctx, s := start(t, open)
		p := pending(time.Now())
		put(ctx, t, s, p)
		waited := waitIn(ctx, s, p.ID)
		if err := s.Delete(ctx, p.ID); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if r := <-waited; !errors.Is(r.err, browser.ErrUnknown) {
			t.Fatalf("Wait across a Delete: %q, %v; want an error wrapping browser.ErrUnknown", r.outcome, r.err)
		}
	})
	t.Run("OfManyConcurrentDecisionsExactlyOneWins", func(t *testing.T) {
		ctx, s := start(t, open)
		p := pending(time.Now())
		put(ctx, t, s, p)
		raceDecisions(ctx, t, []browser.Store{s}, p.ID)
	})
}

// start opens the subtest's store and the context its calls carry.
func start(t *testing.T, open func(t *testing.T) browser.Store) (context.Context, browser.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), patience)
	t.Cleanup(cancel)
	return ctx, open(t)
}

// newID returns a fresh ID shaped like the gate's nonces.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// pending is an approval created at created, due well in the future, with
// text that a store must keep byte for byte.
func pending(created time.Time) browser.Pending {
	return browser.Pending{Request: browser.Request{
		ID:          newID(),
		Server:      "fisk-mcp «test»",
		Tool:        "app_rm",
		CommandLine: `app rm --force '<b>a file</b>' "and \"quotes\""`,
		Trigger:     "ai:confirm",
		Client:      "client 1.0 (session ab12)",
		Deadline:    created.Add(10 * time.Minute),
	}, Created: created}
}

func put(ctx context.Context, t *testing.T, s browser.Store, p browser.Pending) {
	t.Helper()
	if err := s.Put(ctx, p); err != nil {
		t.Fatalf("Put %s: %v", p.ID, err)
	}
}

// wantListed fails unless List returns want, in that order, among the
// subtest's approvals (want and absent), and none of absent.
func wantListed(ctx context.Context, t *testing.T, s browser.Store, want []browser.Pending, absent ...browser.Pending) {
	t.Helper()
	list, err := s.List(ctx)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	var ids []string
	for _, p := range slices.Concat(want, absent) {
		ids = append(ids, p.ID)
	}
	var got []browser.Pending
	for _, p := range list {
		if slices.Contains(ids, p.ID) {
			got = append(got, p)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("List holds %d of this test's approvals (%v), want %d (%v)", len(got), idsOf(got), len(want), idsOf(want))
	}
	for i := range want {
		if !same(got[i], want[i]) {
			t.Fatalf("List entry %d is\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}
}

func idsOf(ps []browser.Pending) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids
}

// same compares field by field, times by instant.
func same(a, b browser.Pending) bool {
	return a.ID == b.ID && a.Server == b.Server && a.Tool == b.Tool && a.CommandLine == b.CommandLine &&
		a.Trigger == b.Trigger && a.Client == b.Client && a.Deadline.Equal(b.Deadline) && a.Created.Equal(b.Created)
}

func wantDecide(ctx context.Context, t *testing.T, s browser.Store, id string, o browser.Outcome, wantOK bool) {
	t.Helper()
	ok, err := s.Decide(ctx, id, o)
	if err != nil || ok != wantOK {
		t.Fatalf("Decide %s %s: %v, %v; want %v, nil", id, o, ok, err, wantOK)
	}
}

type result struct {
	outcome browser.Outcome
	err     error
}

// waitIn runs Wait in a goroutine and hands its result over.
func waitIn(ctx context.Context, s browser.Store, id string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		o, err := s.Wait(ctx, id)
		ch <- result{o, err}
	}()
	return ch
}

func wantResult(t *testing.T, r result, want browser.Outcome) {
	t.Helper()
	if r.err != nil || r.outcome != want {
		t.Fatalf("Wait: %q, %v; want %q", r.outcome, r.err, want)
	}
}

func wantWait(ctx context.Context, t *testing.T, s browser.Store, id string, want browser.Outcome) {
	t.Helper()
	o, err := s.Wait(ctx, id)
	wantResult(t, result{o, err}, want)
}

func wantUnknown(ctx context.Context, t *testing.T, s browser.Store, id string) {
	t.Helper()
	if o, err := s.Wait(ctx, id); !errors.Is(err, browser.ErrUnknown) {
		t.Fatalf("Wait on %s, which the store does not hold: %q, %v; want an error wrapping browser.ErrUnknown", id, o, err)
	}
}

// raceDecisions starts many Decides on id at once, spread over stores,
// and checks that exactly one is ok and that every store's Wait returns
// that one's outcome.
func raceDecisions(ctx context.Context, t *testing.T, stores []browser.Store, id string) {
	t.Helper()
	outcomes := []browser.Outcome{browser.Approved, browser.Denied, browser.Closed, browser.Reused}
	const n = 16
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []browser.Outcome
		errs    []error
	)
	begin := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-begin
			o := outcomes[i%len(outcomes)]
			ok, err := stores[i%len(stores)].Decide(ctx, id, o)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				winners = append(winners, o)
			}
		})
	}
	close(begin)
	wg.Wait()
	if len(errs) > 0 || len(winners) != 1 {
		t.Fatalf("%d concurrent Decides: %d were ok (%v), errors %v; want exactly one ok and no error", n, len(winners), winners, errs)
	}
	for _, s := range stores {
		wantWait(ctx, t, s, id, winners[0])
	}
}
