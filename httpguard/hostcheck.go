package httpguard

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/internal/echo"
)

// hostCheck guards against DNS rebinding: a web page whose name the
// attacker re-points at this server's address is same-origin to the
// browser, so neither the Origin check nor CORS stops it; only the Host
// header, which still names the attacker's domain, gives it away. A request
// must name a host the server knows is its own:
//
//   - on a connection that arrived on a loopback address: a loopback host
//     (localhost or a loopback IP), the SDK's own rule for /mcp;
//   - on any other connection, when checked: an IP literal (a browser that
//     typed an IP cannot be rebound), the host name of the bound address;
//   - on either: a host listed in Config.AllowHosts.
//
// Connections on non-loopback addresses are checked when the server asks
// no credential (Config.Auth is nil), and with one when AllowHosts is set.
// A bearer token alone already stops a rebinding page: the browser has no
// way to attach it to a request the attacker's script makes, so the check
// would add nothing but refusals of legitimate names. The check covers
// every path, a health check included.
type hostCheck struct {
	bound   string          // the bound address's host name; "" for an IP or all interfaces
	allowed map[string]bool // normalised AllowHosts
	remote  bool            // check connections on non-loopback addresses
}

func newHostCheck(cfg Config) (*hostCheck, error) {
	c := &hostCheck{allowed: map[string]bool{}, remote: cfg.Auth == nil || len(cfg.AllowHosts) > 0}
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
	if local != nil && IsLoopback(local) {
		if isLoopbackHost(name) {
			return ""
		}
		return fmt.Sprintf("Forbidden: invalid Host header %s: this server listens on loopback and answers only requests naming a loopback host; if a proxy forwards requests by this name, start fisk-mcp with --allow-host %s", echo.Quoted(host), hostHint(name))
	}
	if !c.remote || isIPLiteral(name) || (c.bound != "" && name == c.bound) {
		return ""
	}
	return fmt.Sprintf("Forbidden: invalid Host header %s: this server answers only requests naming an IP address or its own host name, so that a web page cannot reach it through DNS rebinding; if clients reach it by this name, start fisk-mcp with --allow-host %s", echo.Quoted(host), hostHint(name))
}

// hostHint is name for an error message, or a placeholder when it is
// empty or not a plain host name (the Host header is the client's to
// choose, and the hint is repeated unquoted).
func hostHint(name string) string {
	if name == "" || len(name) > echo.Max || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
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

// IsLoopback reports whether a is an address on the loopback interface,
// one only this machine can reach.
func IsLoopback(a net.Addr) bool {
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
