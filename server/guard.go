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

// hostCheck refuses DNS rebinding: a web page whose name the attacker
// re-points at this server's address is same-origin to the browser, so
// neither the Origin check nor CORS stops it; only the Host header, which
// still names the attacker's domain, gives it away. A request must name a
// host the server knows is its own:
//
//   - on a connection that arrived on a loopback address: a loopback host
//     (localhost or a loopback IP), the SDK's own rule for /mcp;
//   - on any other connection, when checked: an IP literal (a browser that
//     typed an IP cannot be rebound), the host name of the bound address;
//   - on either: a host listed in HTTPConfig.AllowHosts.
//
// Connections on non-loopback addresses are checked when the server has no
// token, and with a token when AllowHosts is set. A token alone already
// stops a rebinding page: the browser has no way to attach it to a request
// the attacker's script makes, so the check would add nothing but refusals
// of legitimate names. The check covers every path, /healthz included.
type hostCheck struct {
	bound   string          // the bound address's host name; "" for an IP or all interfaces
	allowed map[string]bool // normalised AllowHosts
	remote  bool            // check connections on non-loopback addresses
}

func newHostCheck(cfg HTTPConfig) (*hostCheck, error) {
	c := &hostCheck{allowed: map[string]bool{}, remote: cfg.Token == "" || len(cfg.AllowHosts) > 0}
	if host, _, err := net.SplitHostPort(cfg.Addr); err == nil && !isIPLiteral(host) {
		c.bound = normalizeHost(host)
	}
	for _, h := range cfg.AllowHosts {
		name := normalizeHost(h)
		if name == "" || strings.ContainsAny(h, "/@?#*, \t") {
			return nil, fmt.Errorf("allowed host %q: give a host name as clients write it in the URL, such as mcp.example.com, without scheme, port or path", h)
		}
		c.allowed[name] = true
	}
	return c, nil
}

func (c *hostCheck) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if msg := c.refusal(local, r.Host); msg != "" {
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// refusal returns why a request naming host that arrived on the local
// address local is refused, or "" when it may proceed. A request whose
// local address is unknown (a handler mounted on a foreign server) is
// treated as arriving on a non-loopback address, the stricter rule.
func (c *hostCheck) refusal(local net.Addr, host string) string {
	name := normalizeHost(host)
	if c.allowed[name] {
		return ""
	}
	if local != nil && isLoopbackAddr(local) {
		if isLoopbackHost(name) {
			return ""
		}
		return fmt.Sprintf("Forbidden: invalid Host header %q: this server listens on loopback and answers only requests naming a loopback host; if a proxy forwards requests by this name, start fisk-mcp with --allow-host %s", host, hostHint(name))
	}
	if !c.remote || isIPLiteral(name) || (c.bound != "" && name == c.bound) {
		return ""
	}
	return fmt.Sprintf("Forbidden: invalid Host header %q: this server answers only requests naming an IP address or its own host name, so that a web page cannot reach it through DNS rebinding; if clients reach it by this name, start fisk-mcp with --allow-host %s", host, hostHint(name))
}

// hostHint is name for an error message, or a placeholder when it is empty.
func hostHint(name string) string {
	if name == "" {
		return "HOST"
	}
	return name
}

// normalizeHost returns the host name of a Host header or of an address:
// without port or brackets, lower case, without a trailing dot (which
// names the same host).
func normalizeHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// isIPLiteral reports whether host (normalised, an IPv6 zone allowed) is
// an IP address rather than a name.
func isIPLiteral(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if i := strings.IndexByte(host, '%'); i >= 0 {
		host = host[:i]
	}
	return host != "" && net.ParseIP(host) != nil
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
	host = normalizeHost(host)
	if host == "localhost" {
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
