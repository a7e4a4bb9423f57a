package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// slotPool hands out the server's concurrency slots (Config.Concurrency)
// fairly between the clients of a shared HTTP server.
//
// The rule: a call over HTTP may take a free slot only while its client
// holds fewer than Config.ClientConcurrency of them (half the slots,
// rounded up, by default); calls waiting for a slot are served in order of
// arrival, skipping those whose client is at its share. A client that
// starts long commands and drops its connections therefore holds at most
// its share until they end (a dropped stream is not a cancellation, so they
// may run to their timeout), and every other client still finds slots.
// Without a share, one session could take every slot and starve all others
// for as long as its commands run.
//
// A client is its session on stateful HTTP. A request without a session
// (stateless HTTP) belongs to the pair of the address it came from and a
// hash of its Authorization header: with one shared token that is the
// machine, and a machine cannot raise its share by opening connections.
// Calls that did not arrive over HTTP (stdio, which serves exactly one
// client, or a transport of the caller's own) have no share and may use
// every slot.
type slotPool struct {
	size, share int

	mu    sync.Mutex
	used  int
	held  map[string]int // by client, only clients holding slots
	queue []*slotWaiter  // in order of arrival
}

type slotWaiter struct {
	client string // "" when the call has no share
	ready  chan struct{}
}

func newSlotPool(size, share int) *slotPool {
	return &slotPool{size: size, share: share, held: map[string]int{}}
}

// acquire takes a slot for client ("" for a call without a share), waiting
// as long as ctx allows; waiting, when set, is called once the call starts
// to wait. The returned function gives the slot back.
func (p *slotPool) acquire(ctx context.Context, client string, waiting func()) (release func(), err error) {
	release = func() { p.release(client) }
	p.mu.Lock()
	if p.fits(client) {
		p.take(client)
		p.mu.Unlock()
		return release, nil
	}
	w := &slotWaiter{client: client, ready: make(chan struct{})}
	p.queue = append(p.queue, w)
	p.mu.Unlock()
	if waiting != nil {
		waiting()
	}
	select {
	case <-w.ready:
		return release, nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	for i, q := range p.queue {
		if q == w {
			p.queue = append(p.queue[:i], p.queue[i+1:]...)
			p.mu.Unlock()
			return nil, ctx.Err()
		}
	}
	p.mu.Unlock()
	// Granted while the context ended: pass the slot on.
	p.release(client)
	return nil, ctx.Err()
}

func (p *slotPool) release(client string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.used--
	if client != "" {
		if p.held[client]--; p.held[client] <= 0 {
			delete(p.held, client)
		}
	}
	for i := 0; i < len(p.queue) && p.used < p.size; {
		w := p.queue[i]
		if !p.fits(w.client) {
			i++
			continue
		}
		p.take(w.client)
		p.queue = append(p.queue[:i], p.queue[i+1:]...)
		close(w.ready)
	}
}

// fits reports whether client may take a slot now; p.mu is held.
func (p *slotPool) fits(client string) bool {
	return p.used < p.size && (client == "" || p.held[client] < p.share)
}

// take gives client a slot; p.mu is held and fits(client) is true.
func (p *slotPool) take(client string) {
	p.used++
	if client != "" {
		p.held[client]++
	}
}

// clientAddrHeader carries the address a request came from to the tool
// handler, which the SDK hands the request's headers but not its
// connection. withClientAddr removes any value a client sent under this
// name first, so that no client can pose as another.
const clientAddrHeader = "Fisk-Mcp-Client-Addr"

func withClientAddr(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		r.Header.Del(clientAddrHeader)
		r.Header.Set(clientAddrHeader, host)
		h.ServeHTTP(w, r)
	})
}

// clientOf names the client a call's slots count against ("" for a call
// that did not arrive over HTTP); see slotPool.
func clientOf(req *mcp.CallToolRequest) string {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return ""
	}
	if req.Session != nil && req.Session.ID() != "" {
		return "session " + req.Session.ID()
	}
	if info := req.Extra.TokenInfo; info != nil {
		// An OAuth caller: the identity layer removed the token itself.
		return "user " + info.UserID
	}
	token := sha256.Sum256([]byte(req.Extra.Header.Get("Authorization")))
	return "address " + req.Extra.Header.Get(clientAddrHeader) + " token " + hex.EncodeToString(token[:8])
}
