package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const sessionIDHeader = "Mcp-Session-Id"

// errSessionEnded refuses a call that reaches a session while a DELETE
// ends it.
var errSessionEnded = errors.New("the session is being ended and accepts no new calls; open a new session")

// endingSessions makes a DELETE of a stateful HTTP session end it at once.
// The SDK's own DELETE closes the session gracefully: it waits for the
// session's calls to finish by themselves (a command may run for the whole
// timeout) and only then closes the session's streams, although the
// client, which has said it is done, will never read their results. So
// the session's calls are cancelled first, killing their process groups;
// the SDK's close then finds them returning, closes the streams and
// answers 204. A session the SDK does not know is left to the SDK (404).
//
// The bearer token has been checked before this handler runs, and the
// server binds no session to a user, so whoever may DELETE a session in the
// SDK may end its calls here.
func (s *Server) endingSessions(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionIDHeader)
		if r.Method != http.MethodDelete || id == "" {
			h.ServeHTTP(w, r)
			return
		}
		var session *mcp.ServerSession
		for ss := range s.mcp.Sessions() {
			if ss.ID() == id {
				session = ss
			}
		}
		if session == nil {
			h.ServeHTTP(w, r)
			return
		}
		cancelled, forget := s.calls.endSession(session)
		defer forget()
		if cancelled > 0 {
			s.log.Info("the client deleted its session: cancelling its calls", "session", id, "calls", cancelled)
		}
		h.ServeHTTP(w, r)
	})
}

// sessionScope is what the call tracker keeps of one session: how many of
// its calls run, and a context whose end cancels them all.
type sessionScope struct {
	ctx    context.Context
	cancel context.CancelFunc
	calls  int
	ending bool // held by endSession until the SDK has closed the session
}

// scope counts a call into session's scope, creating the scope, and
// refuses it once the session is being ended. A call without a session has
// no scope. t.mu is held.
func (t *callTracker) scope(session *mcp.ServerSession) (*sessionScope, error) {
	if session == nil {
		return nil, nil
	}
	sc := t.sessions[session]
	if sc == nil {
		sc = newSessionScope()
		t.sessions[session] = sc
	}
	if sc.ctx.Err() != nil {
		return nil, errSessionEnded
	}
	sc.calls++
	return sc, nil
}

func newSessionScope() *sessionScope {
	ctx, cancel := context.WithCancel(context.Background())
	return &sessionScope{ctx: ctx, cancel: cancel}
}

// watch arranges for cancel to run when the scope ends, as
// context.AfterFunc does; on a nil scope it does nothing.
func (sc *sessionScope) watch(cancel context.CancelFunc) (stop func() bool) {
	if sc == nil {
		return func() bool { return false }
	}
	return context.AfterFunc(sc.ctx, cancel)
}

// leave counts a call out of its session's scope, dropping the scope with
// its last call unless the session is being ended. t.mu is held.
func (t *callTracker) leave(session *mcp.ServerSession, sc *sessionScope) {
	if sc == nil {
		return
	}
	sc.calls--
	if sc.calls == 0 && !sc.ending {
		t.drop(session, sc)
	}
}

func (t *callTracker) drop(session *mcp.ServerSession, sc *sessionScope) {
	sc.cancel()
	if t.sessions[session] == sc {
		delete(t.sessions, session)
	}
}

// endSession cancels every call of session and refuses new ones until
// forget is called, once the session is closed. It reports how many calls
// it cancelled.
func (t *callTracker) endSession(session *mcp.ServerSession) (cancelled int, forget func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sc := t.sessions[session]
	if sc == nil {
		sc = newSessionScope()
		t.sessions[session] = sc
	}
	sc.ending = true
	sc.cancel()
	return sc.calls, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		sc.ending = false
		if sc.calls == 0 {
			t.drop(session, sc)
		}
	}
}
