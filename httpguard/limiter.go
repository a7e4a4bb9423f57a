package httpguard

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of LimiterOptions: ten wrong credentials at once, then one more
// every six seconds (ten a minute); 10,000 clients with allowances kept
// apart.
const (
	DefaultBurst      = 10
	DefaultEvery      = 6 * time.Second
	DefaultMaxClients = 10000
)

// LimiterOptions configures a Limiter; the zero value takes the defaults.
type LimiterOptions struct {
	// Burst is how many wrong credentials a client may give at once.
	Burst int
	// Every is how often the allowance regains one.
	Every time.Duration
	// MaxClients bounds the clients kept apart (see Limiter).
	MaxClients int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Limiter bounds how many wrong credentials a server checks from one
// client. A token's length says nothing of how guessable it is
// ("approvals-password-1" passes any length check), and a guess costs the
// guesser one request: without a bound, a server on a network checks as
// many guesses as it is sent, and logs each one.
//
// Each client has an allowance of wrong credentials that refills at a
// steady rate (a token bucket, golang.org/x/time/rate). While a client's
// allowance is used up, its credentials are not checked at all, the right
// one included: otherwise the bound would not bound guessing. So a person
// who mistypes a few times is not slowed, a guesser gets a handful of
// tries a minute, and a client that shares its address with a guesser
// (behind one proxy) waits with it, for the refill of one try at most.
//
// A client is what [ClientOf] names: the host of the request's remote
// address, and for IPv6 its /64 network, the block one machine is
// routinely given. The limiter keeps a client only while its allowance is
// not full, and at most MaxClients of them: past that, the clients it
// cannot keep share one allowance, so that many addresses buy a guesser no
// more than one does.
//
// It does not share allowances between replicas: each server process
// bounds the guesses it checks. It is safe for concurrent use.
type Limiter struct {
	burst int
	every time.Duration
	max   int
	now   func() time.Time

	mu        sync.Mutex
	clients   map[string]*client
	shared    *client   // the allowance of clients past max
	lastSweep time.Time // when full allowances were last dropped
}

type client struct {
	allowance *rate.Limiter
	refused   bool // Failed has reported this allowance used up
}

// NewLimiter returns a Limiter.
func NewLimiter(o LimiterOptions) *Limiter {
	l := &Limiter{burst: o.Burst, every: o.Every, max: o.MaxClients, now: o.Now, clients: map[string]*client{}}
	if l.burst <= 0 {
		l.burst = DefaultBurst
	}
	if l.every <= 0 {
		l.every = DefaultEvery
	}
	if l.max <= 0 {
		l.max = DefaultMaxClients
	}
	if l.now == nil {
		l.now = time.Now
	}
	l.shared = l.newClient()
	return l
}

// Allowance says the limiter's allowance in words, for a log line.
func (l *Limiter) Allowance() string {
	return fmt.Sprintf("%d wrong tokens, then one every %s", l.burst, l.every)
}

func (l *Limiter) newClient() *client {
	return &client{allowance: rate.NewLimiter(rate.Every(l.every), l.burst)}
}

// ClientOf names the client a request from remoteAddr (an http.Request's
// RemoteAddr, "host:port") counts as: its host, or for IPv6 its /64.
func ClientOf(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	addr = addr.Unmap()
	if addr.Is6() {
		if p, err := addr.WithZone("").Prefix(64); err == nil {
			return p.String()
		}
	}
	return addr.String()
}

// Verdict is what Verify made of a credential.
type Verdict struct {
	// Right: the credential was checked and is right.
	Right bool
	// Wait, when not zero, is how long until c may give one again: its
	// allowance was used up, and the credential was not checked.
	Wait time.Duration
	// UsedUp: this wrong credential used the allowance up. It is true
	// once each time the allowance runs out, so that a caller can say so
	// once (in its log) rather than for every credential it then refuses.
	UsedUp bool
}

// Verify checks a credential from c with right, which reports whether it
// is the right one, unless c's allowance is used up; a wrong one counts
// against the allowance. The check runs under the limiter's lock, so
// concurrent requests cannot check more wrong credentials than the
// allowance holds: right should be quick (a constant-time comparison).
func (l *Limiter) Verify(c string, right func() bool) Verdict {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	cl := l.lookup(c)
	if cl != nil {
		tokens := cl.allowance.TokensAt(now)
		if tokens < 1 {
			// In whole seconds, rounded up, as a Retry-After header says it.
			wait := time.Duration(math.Ceil((1-tokens)*l.every.Seconds())) * time.Second
			return Verdict{Wait: max(wait, time.Second)}
		}
		cl.refused = false
	}
	if right() {
		return Verdict{Right: true}
	}
	if cl == nil {
		cl = l.add(c, now)
	}
	cl.allowance.AllowN(now, 1)
	if cl.allowance.TokensAt(now) < 1 && !cl.refused {
		cl.refused = true
		return Verdict{UsedUp: true}
	}
	return Verdict{}
}

// lookup returns the allowance c is kept with: its own, the shared one
// when the limiter is full and c has none, or nil when c has a full
// allowance (it is not kept). l.mu is held.
func (l *Limiter) lookup(c string) *client {
	if cl, ok := l.clients[c]; ok {
		return cl
	}
	if len(l.clients) >= l.max && l.shared.allowance.TokensAt(l.now()) < float64(l.burst) {
		return l.shared
	}
	return nil
}

// add keeps an allowance for c, dropping full ones first when the limiter
// is at MaxClients (at most once per Every, so that a flood of new
// clients does not cost a sweep each); with no room, c shares. l.mu is
// held.
func (l *Limiter) add(c string, now time.Time) *client {
	if len(l.clients) >= l.max && now.Sub(l.lastSweep) >= l.every {
		l.lastSweep = now
		for k, cl := range l.clients {
			if cl.allowance.TokensAt(now) >= float64(l.burst) {
				delete(l.clients, k)
			}
		}
	}
	if len(l.clients) >= l.max {
		return l.shared
	}
	cl := l.newClient()
	l.clients[c] = cl
	return cl
}
