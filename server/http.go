package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/httpguard"
	"github.com/fisk-mcp/fisk-mcp/identity"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for HTTPConfig.
const (
	DefaultAddr           = "127.0.0.1:8080"
	DefaultMaxBodyBytes   = 4 << 20
	DefaultSessionTimeout = 30 * time.Minute
	// DefaultEventStoreBytes bounds the memory kept for resuming SSE
	// streams, across all sessions.
	DefaultEventStoreBytes = 8 << 20
	// DefaultRetryHint is the reconnection delay announced on SSE streams.
	DefaultRetryHint = 2 * time.Second
	// DefaultReadTimeout bounds reading one request, body included: a
	// client trickling a body cannot hold a connection and a goroutine.
	DefaultReadTimeout = time.Minute
	// DefaultIdleTimeout closes keep-alive connections with no request.
	DefaultIdleTimeout = 2 * time.Minute
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

// HTTPConfig configures the streamable HTTP transport. The zero value of
// every field is a documented default. Token, AllowOrigins, AllowHosts and
// MaxSessions are applied by the guard in front of the transport (see
// package httpguard).
type HTTPConfig struct {
	// Addr is the address to bind; "" means DefaultAddr (loopback).
	Addr string
	// Stateless serves every request without a session. Stateless servers
	// cannot ask legacy (pre-2026-07-28) clients for approval, so gated
	// tools are refused for them.
	Stateless bool
	// Token is the bearer token every /mcp request must carry. A
	// non-loopback address needs one (or OAuth), unless InsecureNoAuth
	// is set.
	Token string
	// OAuth, when its Issuer is set, makes /mcp an OAuth 2.1 resource
	// server (see package identity): every request needs an access token
	// the issuer made for OAuth.Resource, and the protected resource
	// metadata is served at its well-known paths, without a token. It
	// replaces Token rather than adding a second way in: a shared token
	// beside it would be a caller without an identity, whom per-caller
	// sessions and policy could not tell apart. OAuth.Resource is the URL
	// clients connect to; on a loopback address it may be left empty for
	// http://ADDR/mcp of the bound address, elsewhere it is required (it
	// is never taken from a request's Host header, which the client
	// chooses).
	OAuth identity.Config
	// InsecureNoAuth allows a non-loopback address without a token. It is
	// logged as a warning: anyone who can reach the port can run the tools.
	InsecureNoAuth bool
	// AllowOrigins lists browser origins ("scheme://host[:port]") allowed
	// besides the server's own; any other cross-origin request gets 403.
	AllowOrigins []string
	// AllowHosts lists further host names (as in the URL, no port) that
	// requests may name in their Host header, as httpguard.Config's
	// AllowHosts (which says when the Host check applies). List the names
	// clients and proxies use, e.g. "mcp.example.com".
	AllowHosts []string
	// MaxBodyBytes bounds request bodies (413 beyond); 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// SessionTimeout closes sessions idle that long; 0 means
	// DefaultSessionTimeout, a negative value never closes them.
	SessionTimeout time.Duration
	// MaxSessions bounds the sessions a stateful server holds at once;
	// a request that would open one more gets 503 with a JSON-RPC error
	// saying what to do. 0 means DefaultMaxSessions, a negative value no
	// bound. Stateless servers keep no sessions and ignore it.
	MaxSessions int
	// DrainTimeout is how long in-flight calls may finish once Serve's
	// context ends; 0 means Config.DrainTimeout.
	DrainTimeout time.Duration
	// EventStoreBytes bounds the events kept to resume SSE streams; 0
	// means DefaultEventStoreBytes.
	EventStoreBytes int
	// RetryHint is the SSE reconnection delay sent to clients; 0 means
	// DefaultRetryHint.
	RetryHint time.Duration
	// ReadTimeout bounds reading one request, headers and body; 0 means
	// DefaultReadTimeout, a negative value none. It ends once the body has
	// been read, so it limits neither a long call nor an SSE stream.
	ReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that waits that long for
	// its next request; 0 means DefaultIdleTimeout, a negative value never.
	// An open SSE stream is a request in progress, not an idle connection.
	IdleTimeout time.Duration
	// Approvals, if set, serves the approval page of a shared server at
	// /approvals and below. It carries its own authentication (the
	// approver's token, or with OAuth a sign-in with the issuer: see
	// approvalsSignIn; never Token) and checks; the Host and Origin
	// checks apply to it as to /mcp.
	Approvals http.Handler
}

func (c HTTPConfig) withDefaults(drain time.Duration) HTTPConfig {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	switch {
	case c.SessionTimeout == 0:
		c.SessionTimeout = DefaultSessionTimeout
	case c.SessionTimeout < 0:
		c.SessionTimeout = 0
	}
	if c.MaxSessions == 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = drain
	}
	if c.EventStoreBytes <= 0 {
		c.EventStoreBytes = DefaultEventStoreBytes
	}
	if c.RetryHint <= 0 {
		c.RetryHint = DefaultRetryHint
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	return c
}

// UnauthenticatedError is what ListenHTTP returns when it refuses to serve
// a non-loopback address with neither HTTPConfig.Token nor
// HTTPConfig.InsecureNoAuth: anyone who can reach the port could run the
// tools. A caller tells it apart with errors.As, to say how its own users
// set a token.
type UnauthenticatedError struct {
	// Addr is the address that was bound, and released again.
	Addr net.Addr
	// Given is HTTPConfig.Addr, which the message names: the bound
	// address of 0.0.0.0 reads [::].
	Given string
}

func (e *UnauthenticatedError) Error() string {
	return fmt.Sprintf("refusing to serve %s without authentication: it is not a loopback address; set a bearer token (%s) or an OAuth issuer, or explicitly allow unauthenticated access", e.Given, execrunner.TokenEnvVar)
}

// HTTPServer is a Server's streamable HTTP transport, bound to its address
// and not yet serving. Create it with [Server.ListenHTTP] and run it with
// [HTTPServer.Serve].
type HTTPServer struct {
	s   *Server
	cfg HTTPConfig // with defaults applied
	ln  net.Listener
	h   http.Handler
}

// ListenHTTP validates cfg, binds its address and returns the HTTP server
// for /mcp and GET /healthz (and the resource metadata, with OAuth), ready
// to Serve. Binding happens here, before
// serving, so the caller can report the bound address (Addr may use port 0)
// and fail early. A non-loopback address without a token is refused with an
// [*UnauthenticatedError] unless cfg.InsecureNoAuth is set.
func (s *Server) ListenHTTP(cfg HTTPConfig) (*HTTPServer, error) {
	cfg = cfg.withDefaults(s.cfg.DrainTimeout)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", cfg.Addr, err)
	}
	if err := resolveOAuth(&cfg, ln.Addr()); err != nil {
		ln.Close()
		return nil, err
	}
	if !httpguard.IsLoopback(ln.Addr()) && cfg.Token == "" && cfg.OAuth.Issuer == "" {
		if !cfg.InsecureNoAuth {
			ln.Close()
			return nil, &UnauthenticatedError{Addr: ln.Addr(), Given: cfg.Addr}
		}
		s.log.Warn("serving a non-loopback address without authentication: anyone who can reach it can run the exposed tools", "addr", ln.Addr().String())
	}
	s.staticToken.Store(cfg.Token != "")
	h, err := s.httpHandler(cfg)
	if err != nil {
		ln.Close()
		return nil, err
	}
	return &HTTPServer{s: s, cfg: cfg, ln: ln, h: h}, nil
}

// resolveOAuth checks cfg's OAuth against its Token and the bound
// address addr, and fills in the resource of a loopback server.
func resolveOAuth(cfg *HTTPConfig, addr net.Addr) error {
	o := &cfg.OAuth
	switch {
	case o.Issuer == "":
		return nil
	case cfg.Token != "":
		return fmt.Errorf("an OAuth issuer and a bearer token (%s or a token file) cannot both admit clients: choose one", execrunner.TokenEnvVar)
	case o.Resource == "" && !httpguard.IsLoopback(addr):
		return fmt.Errorf("serving %s with an OAuth issuer needs the resource identifier, the URL clients connect to, such as https://mcp.example.com/mcp: set it (--oauth-resource)", addr)
	case o.Resource == "":
		o.Resource = "http://" + addr.String() + "/mcp"
	}
	return nil
}

// Addr returns the bound address, with the port chosen when HTTPConfig.Addr
// asked for port 0.
func (hs *HTTPServer) Addr() net.Addr { return hs.ln.Addr() }

// Close releases the address of an HTTPServer that will not be served.
// Serve closes it itself; to stop a serving HTTPServer, end Serve's context.
func (hs *HTTPServer) Close() error { return hs.ln.Close() }

// httpHandler assembles the HTTP surface: the guard's Host and Origin
// checks in front of every path, its token check in front of the SDK's
// streamable handler at /mcp (behind the session cap and the DELETE that
// ends a session's calls, when stateful), and /healthz.
func (s *Server) httpHandler(cfg HTTPConfig) (http.Handler, error) {
	gc := httpguard.Config{Addr: cfg.Addr, AllowHosts: cfg.AllowHosts, AllowOrigins: cfg.AllowOrigins}
	mux := http.NewServeMux()
	switch {
	case cfg.OAuth.Issuer != "":
		oc := cfg.OAuth
		if oc.Logger == nil {
			oc.Logger = s.log
		}
		res, err := identity.New(oc)
		if err != nil {
			return nil, err
		}
		gc.Auth = res
		if page, ok := cfg.Approvals.(approvalsSignIn); ok {
			if err := page.SignInWith(res, s.mayApprove); err != nil {
				return nil, err
			}
		}
		for _, p := range identity.MetadataPaths(oc.Resource) {
			mux.Handle(p, res.Metadata())
		}
	case cfg.Token != "":
		gc.Auth = httpguard.NewBearer(cfg.Token, s.log)
	}
	gc.Auth = s.countRefusals(gc.Auth)
	guard, err := httpguard.New(gc)
	if err != nil {
		return nil, err
	}
	opts := &mcp.StreamableHTTPOptions{
		Stateless:      cfg.Stateless,
		Logger:         sdkLogger(s.log),
		SessionTimeout: cfg.SessionTimeout,
		// Requests on the 2026-07-28 protocol live exactly as long as
		// their POST: when the client goes, cancel the call.
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          cfg.MaxBodyBytes,
		// The SDK's own loopback Host rule would refuse the names in
		// AllowHosts; the guard applies the same rule with them allowed.
		DisableLocalhostProtection: len(cfg.AllowHosts) > 0,
	}
	if !cfg.Stateless {
		store := mcp.NewMemoryEventStore(nil)
		store.SetMaxBytes(cfg.EventStoreBytes)
		opts.EventStore = store
	}
	var streamable http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, opts)
	if !cfg.Stateless {
		streamable = discoverVersions(cfg.MaxBodyBytes, streamable)
		streamable = s.endingSessions(streamable)
		sessions := &httpguard.SessionCap{Max: cfg.MaxSessions, Live: s.sessionIDs, IdleTimeout: cfg.SessionTimeout, Logger: s.log}
		streamable = sessions.Handler(streamable)
	}

	mux.Handle("/mcp", guard.Authenticate(withRetryHint(cfg.RetryHint, withClientAddr(streamable))))
	mux.HandleFunc("GET /healthz", s.healthz)
	if cfg.Approvals != nil {
		mux.Handle("/approvals", cfg.Approvals)
		mux.Handle("/approvals/", cfg.Approvals)
	}
	return guard.Handler(mux), nil
}

// sessionIDs lists the IDs of the SDK's live sessions, for the session cap.
func (s *Server) sessionIDs() iter.Seq[string] {
	return func(yield func(string) bool) {
		for ss := range s.mcp.Sessions() {
			if !yield(ss.ID()) {
				return
			}
		}
	}
}

// healthz answers liveness probes. It needs no token, since probes carry
// no credentials, and reveals only the number of tools.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	// tools is what the server serves; listed, what its tools/list holds,
	// fewer when the set is deferred (the discovery tools and the
	// ai:no_defer ones).
	listed := 0
	if l := s.listing.Load(); l != nil {
		listed = len(l.tools)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "ok", "tools": served(s.tools.Load()), "listed": listed})
}

// responseSlack is how long shutdown waits, after the drain, for POST
// responses still being written (or for elicitations in progress) before it
// closes the sessions.
const responseSlack = time.Second

// Serve serves until ctx ends, then shuts down: it stops accepting
// connections, refuses new calls, lets in-flight calls finish for
// HTTPConfig.DrainTimeout, cancels what remains (killing process groups),
// closes every session and returns nil. It returns early only if serving
// fails. An HTTPServer is served once.
func (hs *HTTPServer) Serve(ctx context.Context) error {
	s, cfg, ln := hs.s, hs.cfg, hs.ln
	active := newRequestTracker()
	srv := &http.Server{Handler: active.handler(hs.h), ErrorLog: slogErrorLog(s.log)}
	// A call that runs for minutes and an SSE stream that stays open for
	// the whole session are unaffected by ReadTimeout, and no write
	// timeout cuts them (see httpguard.Limits); idle sessions are closed
	// by SessionTimeout instead.
	httpguard.Limits{ReadTimeout: cfg.ReadTimeout, IdleTimeout: cfg.IdleTimeout}.Apply(srv)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	s.log.Info("serving streamable HTTP", "addr", ln.Addr().String(), "stateless", cfg.Stateless)
	go s.startup.end()

	select {
	case err := <-served:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}

	// Stop accepting; Shutdown also closes idle connections, but it waits
	// for streams that never idle (SSE), so it runs alongside the drain.
	shutdown := make(chan struct{})
	go func() {
		_ = srv.Shutdown(context.Background())
		close(shutdown)
	}()
	s.drain(cfg.DrainTimeout)
	// Let the responses of the drained calls reach their clients before
	// the sessions close.
	waitClosed(active.idleChan(), responseSlack)
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	if !waitClosed(shutdown, drainSlack) {
		srv.Close()
	}
	<-served
	s.log.Info("streamable HTTP stopped")
	return nil
}

// slogErrorLog routes net/http's own error log to l at Warn.
func slogErrorLog(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelWarn)
}

// ConnectAddr turns a bound address into one a local client can dial: an
// unspecified host (0.0.0.0, ::) becomes loopback.
func ConnectAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
