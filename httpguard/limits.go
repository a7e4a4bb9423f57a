package httpguard

import (
	"net/http"
	"time"
)

// Limits bounds what one connection may take of a server: how long it
// may take to send a request, how much header it may send, how long it
// may stay open between requests. A body's size is bounded by what reads
// it (the SDK's streamable transport answers 413 past its own bound), not
// here.
type Limits struct {
	// ReadTimeout bounds reading one request, headers and body, as
	// http.Server's does; 0 or less means none. net/http lifts it once
	// the body has been read, so it limits neither a long response nor a
	// stream.
	ReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that waits that long for
	// its next request, as http.Server's does: 0 means ReadTimeout's,
	// less than 0 never.
	IdleTimeout time.Duration
}

const (
	// readHeaderTimeout bounds reading a request's headers.
	readHeaderTimeout = 10 * time.Second
	// maxHeaderBytes bounds a request's headers: an MCP client sends a
	// few hundred bytes of them (its token, session and protocol
	// version), and net/http's own bound is 1 MiB per request.
	maxHeaderBytes = 64 << 10
)

// Apply sets srv's limits: l's, 10 seconds to send the headers, and 64 KiB
// of them at most (431 beyond).
//
// It deliberately sets no WriteTimeout: that bounds the whole response,
// and a response of a streaming endpoint (an SSE stream) lasts as long as
// the stream, so any value would cut streams and long calls. Idle streams
// are for the server to end.
func (l Limits) Apply(srv *http.Server) {
	srv.ReadHeaderTimeout = readHeaderTimeout
	srv.MaxHeaderBytes = maxHeaderBytes
	srv.ReadTimeout = l.ReadTimeout
	srv.IdleTimeout = l.IdleTimeout
}
