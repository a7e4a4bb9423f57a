package identity

import (
	"crypto/sha256"
	"sync"
	"time"
)

// verifiedMax bounds the tokens a Resource remembers as verified.
const verifiedMax = 1024

// verified remembers the callers of tokens Verify accepted, so that a
// client sending the same token with every request (as MCP clients do)
// pays for the signature check once instead of on every call, where it
// was most of what OAuth added to a call.
//
// A token is known by its SHA-256 hash, never kept itself. An entry
// answers only while the token has not expired (exp, without the leeway:
// past it, the full check decides) and while the keys it was verified
// under are still the ones held and within their maximum age: a fetch of
// the keys, which a rotation, a withdrawal or their age brings, makes
// every entry check again. Issuer, audience, nbf and the claims kept are
// the token's own and cannot change; the scopes a request needs are
// checked again on every request, by Authenticate. Only tokens Verify
// accepted and that hold every scope required are remembered, so tokens
// that are refused cost no memory; at most verifiedMax are, the oldest
// forgotten first.
type verified struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]*Caller
	gen     uint64              // the generation of the keys of every entry
	order   [][sha256.Size]byte // insertion order, a ring of verifiedMax
	next    int                 // the slot of order written next
}

// get returns a copy of the caller remembered for token, if its entry
// still answers at now under keys.
func (v *verified) get(token string, now time.Time, keys *keySet) (*Caller, bool) {
	sum := sha256.Sum256([]byte(token))
	v.mu.Lock()
	e, ok := v.entries[sum]
	gen := v.gen
	v.mu.Unlock()
	if !ok || !now.Before(e.Expiry) || !keys.current(gen) {
		return nil, false
	}
	c := *e
	return &c, true
}

// put remembers that token, verified under the keys of generation gen,
// names c.
func (v *verified) put(token string, c *Caller, gen uint64) {
	sum := sha256.Sum256([]byte(token))
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.entries == nil {
		v.entries = make(map[[sha256.Size]byte]*Caller)
		v.order = make([][sha256.Size]byte, verifiedMax)
	}
	switch {
	case gen < v.gen: // verified under keys since replaced
		return
	case gen > v.gen: // the entries are of keys since replaced
		clear(v.entries)
		v.gen = gen
	}
	if _, ok := v.entries[sum]; !ok {
		if len(v.entries) >= verifiedMax {
			delete(v.entries, v.order[v.next])
		}
		v.order[v.next] = sum
		v.next = (v.next + 1) % verifiedMax
	}
	v.entries[sum] = c
}

// len is how many tokens are remembered.
func (v *verified) len() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.entries)
}
