package server

import (
	"net/http"
	"sync"
)

// requestTracker counts the POST requests being served. It guards against
// a shutdown that closes the sessions while the responses of drained calls
// are still being written: closing a session discards them, and the client
// would see a dropped connection instead of the result its call produced.
type requestTracker struct {
	mu   sync.Mutex
	n    int
	idle chan struct{}
}

func newRequestTracker() *requestTracker {
	idle := make(chan struct{})
	close(idle)
	return &requestTracker{idle: idle}
}

// handler tracks POST requests only: GET streams live as long as their
// session and are ended by closing it.
func (t *requestTracker) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		t.mu.Lock()
		if t.n == 0 {
			t.idle = make(chan struct{})
		}
		t.n++
		t.mu.Unlock()
		defer func() {
			t.mu.Lock()
			t.n--
			if t.n == 0 {
				close(t.idle)
			}
			t.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

func (t *requestTracker) idleChan() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.idle
}
