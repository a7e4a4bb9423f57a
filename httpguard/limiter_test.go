package httpguard

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// clock is a settable time for the limiter.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestLimiter(max int) (*Limiter, *clock) {
	c := &clock{t: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	return NewLimiter(LimiterOptions{Burst: 3, Every: 10 * time.Second, MaxClients: max, Now: c.now}), c
}

func wrong() bool { return false }
func right() bool { return true }

// A client may give Burst wrong credentials; then none is checked, the
// right one included, until its allowance regains one, which the verdict
// says how long to wait for. Its allowance running out is reported once;
// right credentials cost nothing.
func TestAClientsWrongCredentialsAreBounded(t *testing.T) {
	l, c := newTestLimiter(100)
	for range 5 {
		if v := l.Verify("10.0.0.1", right); !v.Right {
			t.Fatalf("a right credential within the allowance: %+v", v)
		}
	}
	for i := range 3 {
		if v := l.Verify("10.0.0.1", wrong); v.Right || v.Wait != 0 || v.UsedUp != (i == 2) {
			t.Errorf("wrong credential %d: %+v, want checked, used up %v", i+1, v, i == 2)
		}
	}
	checked := false
	v := l.Verify("10.0.0.1", func() bool { checked = true; return true })
	if checked || v.Right || v.Wait != 10*time.Second {
		t.Fatalf("after the allowance: checked %v, %+v; want unchecked, wait 10s", checked, v)
	}
	if v := l.Verify("10.0.0.1", wrong); v.UsedUp || v.Wait == 0 {
		t.Errorf("a used-up allowance: %+v, want refused and not reported again", v)
	}
	c.advance(4 * time.Second)
	if v := l.Verify("10.0.0.1", right); v.Wait != 6*time.Second {
		t.Errorf("4s later: %+v, want refused for 6s more", v)
	}
	c.advance(6 * time.Second)
	if v := l.Verify("10.0.0.1", right); !v.Right {
		t.Fatalf("refused once the allowance regained one: %+v", v)
	}
	if v := l.Verify("10.0.0.1", wrong); !v.UsedUp {
		t.Errorf("the allowance running out again was not reported: %+v", v)
	}
	if v := l.Verify("10.0.0.2", right); !v.Right {
		t.Errorf("another client is refused for the first one's guesses: %+v", v)
	}
}

// However many guesses arrive at once, no more are checked than the
// allowance holds.
func TestConcurrentGuessesAreCheckedNoMoreThanTheAllowance(t *testing.T) {
	l := NewLimiter(LimiterOptions{})
	var checked atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 300 {
		wg.Go(func() {
			<-start
			l.Verify("192.0.2.9", func() bool { checked.Add(1); return false })
		})
	}
	close(start)
	wg.Wait()
	if n := checked.Load(); n != DefaultBurst {
		t.Errorf("300 concurrent guesses: %d checked, want %d", n, DefaultBurst)
	}
}

// A request's client is its host; IPv6 hosts of one /64 are one client,
// and an IPv4 address is the same client however it is written.
func TestClientGroupsAnIPv6NetworkAndNothingElse(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7:4312":             "192.0.2.7",
		"[::ffff:192.0.2.7]:80":      "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443": "2001:db8:1:2::/64",
		"[fe80::1%eth0]:22":          "fe80::/64",
		"not an address":             "not an address",
		"[2001:db8:1:3:3:4:5:6]:443": "2001:db8:1:3::/64",
		"127.0.0.1:9":                "127.0.0.1",
	} {
		if got := ClientOf(in); got != want {
			t.Errorf("ClientOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// However many clients guess, the limiter keeps at most MaxClients apart;
// the others share one allowance, so many addresses buy no more guesses
// than one. Clients whose allowance is full again make room.
func TestManyClientsShareOneAllowancePastMaxClients(t *testing.T) {
	l, c := newTestLimiter(4)
	for i := range 4 {
		l.Verify(fmt.Sprintf("10.0.0.%d", i), wrong)
	}
	for i := range 3 {
		if v := l.Verify(fmt.Sprintf("10.1.0.%d", i), wrong); v.Wait != 0 {
			t.Fatalf("newcomer %d refused before the shared allowance is used: %+v", i, v)
		}
	}
	if len(l.clients) > 4 {
		t.Fatalf("%d clients kept, at most 4", len(l.clients))
	}
	if v := l.Verify("10.2.0.1", right); v.Wait == 0 {
		t.Error("a new client past MaxClients is not held to the shared, used-up allowance")
	}
	if v := l.Verify("10.0.0.1", right); !v.Right {
		t.Errorf("a kept client with its own allowance left is refused: %+v", v)
	}
	// Once the kept clients' allowances are full again, a newcomer is
	// kept on its own.
	c.advance(30 * time.Second)
	l.Verify("10.3.0.1", wrong)
	if _, kept := l.clients["10.3.0.1"]; !kept || len(l.clients) > 4 {
		t.Errorf("after the refill: newcomer kept %v, %d clients kept", kept, len(l.clients))
	}
}
