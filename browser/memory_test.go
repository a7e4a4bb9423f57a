package browser

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestMemoryStore(t *testing.T) {
	ctx := t.Context()
	s := NewMemoryStore()
	t0 := time.Now()
	put := func(id string, created, deadline time.Time) {
		t.Helper()
		if err := s.Put(ctx, Pending{Request: Request{ID: id, Deadline: deadline}, Created: created}); err != nil {
			t.Fatal(err)
		}
	}
	put("b", t0.Add(time.Second), t0.Add(time.Hour))
	put("a", t0, t0.Add(time.Hour))
	put("c", t0.Add(time.Second), t0.Add(time.Hour)) // same instant as b: insertion order
	put("past", t0, t0.Add(-time.Second))
	put("decided", t0, t0.Add(time.Hour))
	if err := s.Put(ctx, Pending{Request: Request{ID: "a"}}); err == nil {
		t.Error("a second Put of an ID was accepted")
	}
	if ok, _ := s.Decide(ctx, "decided", Denied); !ok {
		t.Fatal("first decision refused")
	}
	if ok, _ := s.Decide(ctx, "decided", Approved); ok {
		t.Error("second decision accepted")
	}
	if o, err := s.Wait(ctx, "decided"); o != Denied || err != nil {
		t.Errorf("Wait on decided: %q %v", o, err)
	}
	ps, _ := s.List(ctx)
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	if got := ids; len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Errorf("List = %v, want [a b c]", got)
	}

	woke := make(chan Outcome, 1)
	go func() {
		o, _ := s.Wait(ctx, "a")
		woke <- o
	}()
	s.Decide(ctx, "a", Approved)
	if o := <-woke; o != Approved {
		t.Errorf("Wait woke with %q", o)
	}

	deleted := make(chan error, 1)
	go func() {
		_, err := s.Wait(ctx, "b")
		deleted <- err
	}()
	s.Delete(ctx, "b")
	if err := <-deleted; !errors.Is(err, ErrUnknown) {
		t.Errorf("Wait on a deleted approval: %v", err)
	}
	if _, err := s.Wait(ctx, "nosuch"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Wait on an unknown approval: %v", err)
	}
	if ok, err := s.Decide(ctx, "nosuch", Approved); ok || err != nil {
		t.Errorf("Decide on an unknown approval: %v %v", ok, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Wait(cctx, "c"); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait with an ended context: %v", err)
	}
}
