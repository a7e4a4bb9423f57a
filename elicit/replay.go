package elicit

import (
	"sync"
	"time"
)

// DefaultReplayCapacity bounds how many used, unexpired nonces the gate
// remembers. Each approval states lives at most Options.Timeout, so this is
// the number of approvals answered within one timeout window.
const DefaultReplayCapacity = 1 << 16

// replayCache remembers nonces that were used until they expire. An expired
// state is refused before the cache is consulted, so forgetting a nonce at
// its expiry never lets a replay through.
type replayCache struct {
	mu       sync.Mutex
	capacity int
	used     map[string]time.Time // nonce -> expiry
}

func newReplayCache(capacity int) *replayCache {
	return &replayCache{capacity: capacity, used: map[string]time.Time{}}
}

// useResult says what use decided.
type useResult int

const (
	firstUse useResult = iota
	alreadyUsed
	cacheFull
)

// use records nonce as used, unless it already was. When the cache is full
// of unexpired nonces it refuses rather than forget one early: a burst of
// approvals then fails closed instead of opening a replay window.
func (c *replayCache) use(nonce string, expires, now time.Time) useResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.used[nonce]; ok {
		return alreadyUsed
	}
	if len(c.used) >= c.capacity {
		for n, e := range c.used {
			if isExpired(e, now) {
				delete(c.used, n)
			}
		}
		if len(c.used) >= c.capacity {
			return cacheFull
		}
	}
	c.used[nonce] = expires
	return firstUse
}

func (c *replayCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.used)
}

// isExpired is the one definition of expiry, shared by the state check and
// the cache sweep.
func isExpired(expires, now time.Time) bool { return !now.Before(expires) }
