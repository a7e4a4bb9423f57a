package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// checkHost refuses DNS rebinding: a request that reached a loopback
// listener must name a loopback host. This is the SDK's own rule for /mcp,
// applied to every path so /healthz is covered too.
func checkHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopbackAddr(local) && !isLoopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func isLoopbackAddr(a net.Addr) bool {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.IsLoopback()
	}
	return isLoopbackHost(a.String())
}

// isLoopbackHost reports whether host (with or without a port) names the
// loopback interface.
func isLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originCheck refuses cross-origin browser requests unless their origin is
// allowed. The standard library's CrossOriginProtection covers unsafe
// methods (it also reads Sec-Fetch-Site); an Origin header on any method,
// GET included (the SSE stream), must be the server's own or allowed.
type originCheck struct {
	allowed map[string]bool
	cop     *http.CrossOriginProtection
}

func newOriginCheck(origins []string) (*originCheck, error) {
	c := &originCheck{allowed: map[string]bool{}, cop: http.NewCrossOriginProtection()}
	for _, o := range origins {
		if err := c.cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("allowed origin: %w (write it as scheme://host[:port])", err)
		}
		c.allowed[o] = true
	}
	return c, nil
}

func (c *originCheck) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !c.allowed[origin] {
			if u, err := url.Parse(origin); err != nil || u.Host != r.Host {
				http.Error(w, "Forbidden: cross-origin request from "+origin, http.StatusForbidden)
				return
			}
		}
		if err := c.cop.Check(r); err != nil {
			http.Error(w, "Forbidden: "+err.Error(), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// requireToken demands "Authorization: Bearer <token>" when token is set.
// Both sides are hashed before the constant-time comparison, so neither the
// content nor the length of the token leaks through timing.
func requireToken(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="fisk-mcp"`)
			http.Error(w, "Unauthorized: a bearer token is required", http.StatusUnauthorized)
			return
		}
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="fisk-mcp", error="invalid_token"`)
			http.Error(w, "Unauthorized: invalid bearer token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// bearer extracts the token of an "Authorization: Bearer" header.
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// requestTracker counts requests being served, so shutdown can let the
// responses of drained calls reach their clients before closing sessions.
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

// slogErrorLog routes net/http's own error log to l at Warn.
func slogErrorLog(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelWarn)
}
