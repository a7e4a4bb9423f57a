package server

import (
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxSessions is the default HTTPConfig.MaxSessions. An idle session
// costs about 11 KiB of heap and goroutine stack (BenchmarkIdleSessions),
// some 15 KiB of resident memory, so a full server holds about 15 MiB of
// them, while the clients of one server (a person's editors and agents, or
// a team's) open tens: the cap is far from anything real use reaches, and
// still bounds what a client that opens sessions in a loop can take. A
// session that was not ended with DELETE holds its place until it has been
// idle for SessionTimeout.
const DefaultMaxSessions = 1000

// codeTooManySessions is the JSON-RPC error code (in the range JSON-RPC
// leaves to servers) of a request refused because the server holds
// HTTPConfig.MaxSessions sessions.
const codeTooManySessions = -32001

// sessionCap refuses requests that would open a session while the server
// holds its maximum. In stateful streamable HTTP, every POST without an
// Mcp-Session-Id opens one: an initialize opens a session that lives until
// DELETE, SessionTimeout or shutdown; any other request a session that the
// SDK closes when the request ends. Both count while they live.
//
// A request opening a session counts from the moment it is admitted; once
// its response names the session (only an initialize's does), the session
// counts instead, for as long as the SDK lists it, however it ends. So
// concurrent openings cannot overshoot the cap, and an ended session frees
// its place at once.
type sessionCap struct {
	max      int
	sessions func() iter.Seq[*mcp.ServerSession] // the SDK's live sessions
	timeout  time.Duration
	log      *slog.Logger

	mu       sync.Mutex
	opening  int                 // admitted requests that name no session yet
	admitted map[string]struct{} // sessions opened through the cap, maybe ended since
	refused  int                 // refusals not yet logged
	loggedAt time.Time           // of the last refusal log line
}

// refusalLogEvery bounds how often refusals are logged: a client opening
// sessions in a loop must not flood the log.
const refusalLogEvery = time.Minute

const sessionIDHeader = "Mcp-Session-Id"

func (c *sessionCap) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" {
			h.ServeHTTP(w, r)
			return
		}
		if !c.open() {
			c.refuse(w)
			return
		}
		ow := &openingWriter{ResponseWriter: w, cap: c}
		defer ow.ended()
		h.ServeHTTP(ow, r)
	})
}

// open admits a request that opens a session, or reports that the server
// is full.
func (c *sessionCap) open() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held() >= c.max {
		c.forgetEnded()
	}
	if c.held() >= c.max {
		c.refused++
		if time.Since(c.loggedAt) >= refusalLogEvery {
			c.log.Warn("refusing new HTTP sessions: the server holds its maximum", "max_sessions", c.max, "refused", c.refused)
			c.refused, c.loggedAt = 0, time.Now()
		}
		return false
	}
	c.opening++
	return true
}

// held counts what holds a place: c.mu is held.
func (c *sessionCap) held() int { return c.opening + len(c.admitted) }

// forgetEnded drops the admitted sessions the SDK no longer lists. It
// runs only when the server looks full, so its cost (one pass over the
// live sessions) is paid only then.
func (c *sessionCap) forgetEnded() {
	live := make(map[string]bool, len(c.admitted))
	for ss := range c.sessions() {
		live[ss.ID()] = true
	}
	for id := range c.admitted {
		if !live[id] {
			delete(c.admitted, id)
		}
	}
}

// opened ends an admitted request's own place: from now on the session it
// names (none for a request whose session ends with it) holds one.
func (c *sessionCap) opened(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opening--
	if id != "" {
		if c.admitted == nil {
			c.admitted = map[string]struct{}{}
		}
		c.admitted[id] = struct{}{}
	}
}

func (c *sessionCap) refuse(w http.ResponseWriter) {
	expiry := ""
	if c.timeout > 0 {
		expiry = fmt.Sprintf("retry once idle ones expire (after %s without a request), ", c.timeout)
	}
	body, _ := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      *struct{}      `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{JSONRPC: "2.0", Error: &jsonrpc.Error{
		Code: codeTooManySessions,
		Message: fmt.Sprintf("the server already holds its maximum of %d sessions: end sessions you no longer use (DELETE /mcp with their Mcp-Session-Id), "+
			"%sor have the operator raise the limit (--max-sessions)", c.max, expiry),
	}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(append(body, '\n'))
}

// openingWriter hands an admitted request's place to its session as soon
// as the response names it (the SDK has connected the session by then),
// and gives it up when the request ends without naming one.
type openingWriter struct {
	http.ResponseWriter
	cap  *sessionCap
	once sync.Once
}

func (w *openingWriter) started() {
	if id := w.Header().Get(sessionIDHeader); id != "" {
		w.once.Do(func() { w.cap.opened(id) })
	}
}

func (w *openingWriter) ended() {
	w.once.Do(func() { w.cap.opened(w.Header().Get(sessionIDHeader)) })
}

func (w *openingWriter) WriteHeader(code int) {
	w.started()
	w.ResponseWriter.WriteHeader(code)
}

func (w *openingWriter) Write(p []byte) (int, error) {
	w.started()
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (the SDK
// flushes every event through one).
func (w *openingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
