package server

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// withRetryHint announces a reconnection delay at the start of every SSE
// response, as the 2025-11-25 transport asks of a server that may close a
// stream before it ends. The SDK writes the priming event (an event id and
// empty data) and resumes from its EventStore, but sends a retry field only
// when a handler closes a stream on purpose; a restart or a proxy timeout
// closes it too, and then the client should wait d before resuming rather
// than its own default.
//
// The hint is a field-only SSE block ("retry: N" and a blank line): clients
// apply the field and dispatch no event.
func withRetryHint(d time.Duration, h http.Handler) http.Handler {
	hint := []byte("retry: " + strconv.FormatInt(d.Milliseconds(), 10) + "\n\n")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&retryHintWriter{ResponseWriter: w, hint: hint}, r)
	})
}

type retryHintWriter struct {
	http.ResponseWriter
	hint    []byte
	checked bool
}

func (w *retryHintWriter) Write(p []byte) (int, error) {
	if !w.checked {
		w.checked = true
		if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			if _, err := w.ResponseWriter.Write(w.hint); err != nil {
				return 0, err
			}
		}
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (the SDK
// flushes every event through one).
func (w *retryHintWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
