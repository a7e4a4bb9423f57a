package browser

import (
	"cmp"
	"sync"

	"github.com/fisk-mcp/fisk-mcp/elicit"
)

// The bounds on approvals waiting in one process, on either page. A
// person answers a few at a time: 64 waiting for one client is far past
// what anyone reads, and what one client (a model in a loop) can make
// wait is what the bound is for. The total bounds the process's memory
// and the page's length when many clients are at theirs.
const (
	// DefaultPendingPerClient bounds the approvals one client
	// (Request.Caller) may have waiting at once.
	DefaultPendingPerClient = 64
	// DefaultPendingTotal bounds the approvals waiting at once, over all
	// clients.
	DefaultPendingTotal = 1024
)

// waiting counts the approvals waiting in this process, per client, and
// refuses one over either bound at once. Its zero value uses the
// defaults.
type waiting struct {
	perClient, total int // 0 means the default

	mu  sync.Mutex
	n   int
	per map[string]int
}

// take counts an approval of caller, or refuses it with
// *elicit.TooManyWaiting.
func (w *waiting) take(caller string) error {
	perClient, total := cmp.Or(w.perClient, DefaultPendingPerClient), cmp.Or(w.total, DefaultPendingTotal)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.per[caller] >= perClient {
		return &elicit.TooManyWaiting{Limit: perClient, PerClient: true}
	}
	if w.n >= total {
		return &elicit.TooManyWaiting{Limit: total}
	}
	if w.per == nil {
		w.per = map[string]int{}
	}
	w.per[caller]++
	w.n++
	return nil
}

// release uncounts an approval take counted.
func (w *waiting) release(caller string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n--
	if w.per[caller]--; w.per[caller] <= 0 {
		delete(w.per, caller)
	}
}
