package authlimit

import (
	"fmt"
	"testing"
	"time"
)

// clock is a settable time for the limiter.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestLimiter(max int) (*Limiter, *clock) {
	c := &clock{t: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	return New(Options{Burst: 3, Every: 10 * time.Second, MaxClients: max, Now: c.now}), c
}

// A client may give Burst wrong credentials; then none is checked until
// its allowance regains one, which Check says how long to wait for. Its
// allowance running out is reported once.
func TestAClientsWrongCredentialsAreBounded(t *testing.T) {
	l, c := newTestLimiter(100)
	for i := range 3 {
		if _, ok := l.Check("10.0.0.1"); !ok {
			t.Fatalf("credential %d refused within the burst", i+1)
		}
		if usedUp := l.Failed("10.0.0.1"); usedUp != (i == 2) {
			t.Errorf("wrong credential %d: used up %v, want %v", i+1, usedUp, i == 2)
		}
	}
	wait, ok := l.Check("10.0.0.1")
	if ok || wait != 10*time.Second {
		t.Fatalf("after the burst: ok %v, wait %v; want refused for 10s", ok, wait)
	}
	if l.Failed("10.0.0.1") {
		t.Error("a used-up allowance was reported twice")
	}
	c.advance(4 * time.Second)
	if wait, ok := l.Check("10.0.0.1"); ok || wait != 6*time.Second {
		t.Errorf("4s later: ok %v, wait %v; want refused for 6s more", ok, wait)
	}
	c.advance(6 * time.Second)
	if _, ok := l.Check("10.0.0.1"); !ok {
		t.Fatal("refused once the allowance regained one")
	}
	if !l.Failed("10.0.0.1") {
		t.Error("the allowance running out again was not reported")
	}
	if _, ok := l.Check("10.0.0.2"); !ok {
		t.Error("another client is refused for the first one's guesses")
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
		if got := Client(in); got != want {
			t.Errorf("Client(%q) = %q, want %q", in, got, want)
		}
	}
}

// However many clients guess, the limiter keeps at most MaxClients apart;
// the others share one allowance, so many addresses buy no more guesses
// than one. Clients whose allowance is full again make room.
func TestManyClientsShareOneAllowancePastMaxClients(t *testing.T) {
	l, c := newTestLimiter(4)
	for i := range 4 {
		l.Failed(fmt.Sprintf("10.0.0.%d", i))
	}
	for i := range 3 {
		if _, ok := l.Check(fmt.Sprintf("10.1.0.%d", i)); !ok {
			t.Fatalf("newcomer %d refused before the shared allowance is used", i)
		}
		l.Failed(fmt.Sprintf("10.1.0.%d", i))
	}
	if len(l.clients) > 4 {
		t.Fatalf("%d clients kept, at most 4", len(l.clients))
	}
	if _, ok := l.Check("10.2.0.1"); ok {
		t.Error("a new client past MaxClients is not held to the shared, used-up allowance")
	}
	if _, ok := l.Check("10.0.0.1"); !ok {
		t.Error("a kept client with its own allowance left is refused")
	}
	// Once the kept clients' allowances are full again, a newcomer is
	// kept on its own.
	c.advance(30 * time.Second)
	l.Failed("10.3.0.1")
	if _, kept := l.clients["10.3.0.1"]; !kept || len(l.clients) > 4 {
		t.Errorf("after the refill: newcomer kept %v, %d clients kept", kept, len(l.clients))
	}
}
