package storetest

import (
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/browser"
)

// RunShared checks that two Stores open returns, called twice in each
// subtest, share one backing as the replicas of a server do: what one
// puts, decides or deletes, the other sees, and a decision made through
// one wakes a Wait on the other. Call it besides Run, for stores that
// are shared; a store of one process (browser.MemoryStore) is not.
func RunShared(t *testing.T, open func(t *testing.T) browser.Store) {
	t.Run("WhatOnePutsTheOtherLists", func(t *testing.T) {
		ctx, a := start(t, open)
		b := open(t)
		p := pending(time.Now())
		put(ctx, t, a, p)
		wantListed(ctx, t, b, []browser.Pending{p})
	})
	t.Run("PutOfAnIDTheOtherHoldsFails", func(t *testing.T) {
		ctx, a := start(t, open)
		b := open(t)
		p := pending(time.Now())
		put(ctx, t, a, p)
		if err := b.Put(ctx, p); err == nil {
			t.Fatal("a Put of an ID the other store holds succeeded")
		}
	})
	t.Run("ADecisionThroughOneWakesAWaitOnTheOther", func(t *testing.T) {
		ctx, a := start(t, open)
		b := open(t)
		p := pending(time.Now())
		put(ctx, t, a, p)
		waited := waitIn(ctx, a, p.ID)
		wantDecide(ctx, t, b, p.ID, browser.Denied, true)
		wantResult(t, <-waited, browser.Denied)
		wantDecide(ctx, t, a, p.ID, browser.Approved, false)
		wantListed(ctx, t, a, nil, p)
	})
	t.Run("OfDecisionsRacingThroughBothExactlyOneWins", func(t *testing.T) {
		ctx, a := start(t, open)
		b := open(t)
		p := pending(time.Now())
		put(ctx, t, a, p)
		raceDecisions(ctx, t, []browser.Store{a, b}, p.ID)
	})
	t.Run("WhatOneDeletesTheOtherForgets", func(t *testing.T) {
		ctx, a := start(t, open)
		b := open(t)
		p := pending(time.Now())
		put(ctx, t, a, p)
		if err := b.Delete(ctx, p.ID); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		wantUnknown(ctx, t, a, p.ID)
		wantDecide(ctx, t, a, p.ID, browser.Approved, false)
		wantListed(ctx, t, a, nil, p)
	})
}
