package elicit

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func use(t *testing.T, s *MemoryStore, nonce, client string, expires, now time.Time) (bool, error) {
	t.Helper()
	return s.Use(t.Context(), UsedState{Nonce: nonce, Client: client, Issued: now, Expires: expires, Now: now})
}

func TestMemoryStoreRemembersUntilExpiryAndFailsClosedWhenFull(t *testing.T) {
	now := time.Unix(1000, 0)
	s, err := NewMemoryStore(MemoryOptions{Since: now, Capacity: 2, PerClient: 2})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := use(t, s, "a", "", now.Add(time.Minute), now); !f || err != nil {
		t.Fatalf("fresh nonce: %v %v", f, err)
	}
	if f, err := use(t, s, "a", "", now.Add(time.Minute), now); f || err != nil {
		t.Fatalf("a nonce was usable twice: %v %v", f, err)
	}
	if f, err := use(t, s, "b", "other", now.Add(2*time.Minute), now); !f || err != nil {
		t.Fatalf("a fresh nonce was refused: %v %v", f, err)
	}
	if _, err := use(t, s, "c", "third", now.Add(time.Minute), now); !errors.Is(err, ErrReplayStoreFull) {
		t.Fatalf("full store of live nonces: %v, want ErrReplayStoreFull", err)
	}
	later := now.Add(time.Minute) // "a" has expired, "b" has not
	if f, err := use(t, s, "c", "third", later.Add(time.Minute), later); !f || err != nil {
		t.Fatalf("after a's expiry: %v %v, want fresh", f, err)
	}
	if f, err := use(t, s, "b", "other", later.Add(time.Minute), later); f || err != nil {
		t.Fatalf("b forgotten before its expiry: %v %v", f, err)
	}
	if s.Len() != 2 {
		t.Errorf("store holds %d nonces, want 2", s.Len())
	}
}

// One client answering as fast as it can (declines need no person) fills
// its own share and is refused alone: every other client's answers are
// still recorded. At the real bounds, over a full default expiry's worth of
// ~800 answers a second from the flooding client.
func TestMemoryStoreFloodByOneClientDoesNotDenyOthers(t *testing.T) {
	start := time.Unix(1000, 0)
	s, err := NewMemoryStore(MemoryOptions{Since: start})
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for i := range 800 * int(DefaultTimeout/time.Second) {
		now := start.Add(time.Duration(i) * time.Second / 800)
		if _, err := use(t, s, fmt.Sprintf("flood-%d", i), "attacker", now.Add(DefaultTimeout), now); errors.Is(err, ErrReplayStoreFull) {
			refused++
		} else if err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 {
			if f, err := use(t, s, fmt.Sprintf("honest-%d", i), fmt.Sprintf("client-%d", i%7), now.Add(DefaultTimeout), now); !f || err != nil {
				t.Fatalf("after %d flooding answers another client's answer: %v %v", i, f, err)
			}
		}
	}
	if refused == 0 {
		t.Error("the flooding client was never refused: its share does not bound it")
	}
	if n := s.Len(); n > DefaultReplayPerClient+200 {
		t.Errorf("store holds %d entries; one client's share is %d", n, DefaultReplayPerClient)
	}
}

func TestMemoryStoreRefusesStatesIssuedBeforeItStarted(t *testing.T) {
	start := time.Unix(1000, 0).Add(500 * time.Microsecond)
	s, err := NewMemoryStore(MemoryOptions{Since: start})
	if err != nil {
		t.Fatal(err)
	}
	before := UsedState{Nonce: "a", Issued: start.Add(-time.Millisecond), Expires: start.Add(time.Minute), Now: start}
	if f, err := s.Use(t.Context(), before); f || !errors.Is(err, ErrIssuedBeforeStart) {
		t.Fatalf("state issued before the start: %v %v, want ErrIssuedBeforeStart", f, err)
	}
	// The same millisecond as the start, as a state's claims carry it.
	same := UsedState{Nonce: "b", Issued: time.UnixMilli(start.UnixMilli()), Expires: start.Add(time.Minute), Now: start}
	if f, err := s.Use(t.Context(), same); !f || err != nil {
		t.Fatalf("state issued in the start's millisecond: %v %v", f, err)
	}
}
