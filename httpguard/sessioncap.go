package httpguard

import (
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// CodeTooManySessions is the JSON-RPC error code (in the range JSON-RPC
// leaves to servers) of a request a [SessionCap] refuses.
const CodeTooManySessions = -32001

// SessionCap refuses requests that would open a session of the MCP
// streamable HTTP transport while the server holds Max of them, with 503
// and a JSON-RPC error saying what to do. In stateful streamable HTTP,
// every POST without an Mcp-Session-Id opens one: an initialize opens a
// session that lives until DELETE, the idle timeout or shutdown; any other
// request a session that ends with the request. Both count while they
// live.
//
// A request opening a session counts from the moment it is admitted; once
// its response names the session (only an initialize's does), the session
// counts instead, for as long as Live lists it, however it ends. So
// concurrent openings cannot overshoot the cap, and an ended session frees
// its place at once.
//
// Its fields are set before the first request; the zero value caps
// nothing.
type SessionCap struct {
	// Max is the most sessions held at once; 0 or less means no bound.
	Max int
	// Live lists the IDs of the sessions the transport holds; it must be
	// set when Max is. It is consulted only when the cap looks reached.
	Live func() iter.Seq[string]
	// IdleTimeout, when not zero, is how long an unused session lives:
	// the refusal says that waiting frees places.
	IdleTimeout time.Duration
	// Logger receives the refusals, at most one line a minute; nil logs
	// nothing.
	Logger *slog.Logger

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

// Handler passes to h the requests that open no session, and those that
// open one while the cap has room.
func (c *SessionCap) Handler(h http.Handler) http.Handler {
	if c.Max <= 0 {
		return h
	}
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
func (c *SessionCap) open() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held() >= c.Max {
		c.forgetEnded()
	}
	if c.held() >= c.Max {
		c.refused++
		if time.Since(c.loggedAt) >= refusalLogEvery {
			logger(c.Logger).Warn("refusing new HTTP sessions: the server holds its maximum", "max_sessions", c.Max, "refused", c.refused)
			c.refused, c.loggedAt = 0, time.Now()
		}
		return false
	}
	c.opening++
	return true
}

// held counts what holds a place: c.mu is held.
func (c *SessionCap) held() int { return c.opening + len(c.admitted) }

// forgetEnded drops the admitted sessions Live no longer lists. It
// runs only when the server looks full, so its cost (one pass over the
// live sessions) is paid only then.
func (c *SessionCap) forgetEnded() {
	live := make(map[string]bool, len(c.admitted))
	for id := range c.Live() {
		live[id] = true
	}
	for id := range c.admitted {
		if !live[id] {
			delete(c.admitted, id)
		}
	}
}

// opened ends an admitted request's own place: from now on the session it
// names (none for a request whose session ends with it) holds one.
func (c *SessionCap) opened(id string) {
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

func (c *SessionCap) refuse(w http.ResponseWriter) {
	expiry := ""
	if c.IdleTimeout > 0 {
		expiry = fmt.Sprintf("retry once idle ones expire (after %s without a request), ", c.IdleTimeout)
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	body, _ := json.Marshal(struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      *struct{} `json:"id"`
		Error   rpcError  `json:"error"`
	}{JSONRPC: "2.0", Error: rpcError{
		Code: CodeTooManySessions,
		Message: fmt.Sprintf("the server already holds its maximum of %d sessions: end sessions you no longer use (DELETE /mcp with their Mcp-Session-Id), "+
			"%sor have the operator raise the limit (--max-sessions)", c.Max, expiry),
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
	cap  *SessionCap
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

// logger is l, or a logger that writes nothing when l is nil.
func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
