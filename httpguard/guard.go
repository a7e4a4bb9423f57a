package httpguard

import (
	"net/http"
)

// Config says who may reach the endpoints a [Guard] protects. The zero
// value checks Host and Origin against a loopback server and asks no
// credential.
type Config struct {
	// Addr is the address the server binds, "host:port": a request may
	// name its host.
	Addr string
	// AllowHosts lists further host names (as in the URL, no port) that
	// requests may name in their Host header. Without it, a request on a
	// loopback address must name a loopback host, and one on another
	// address an IP literal or the host name of Addr: any other name may
	// be a web page using DNS rebinding to reach the server. The check
	// applies to non-loopback addresses when Auth is nil, and with Auth
	// only once AllowHosts is set (see hostCheck).
	AllowHosts []string
	// AllowOrigins lists browser origins ("scheme://host[:port]") allowed
	// besides the server's own; any other cross-origin request gets 403.
	AllowOrigins []string
	// Auth authenticates the requests [Guard.Authenticate] protects; nil
	// asks none.
	Auth Authenticator
}

// An Authenticator decides whether a request carries a credential that
// admits it. Authenticate returns the request to serve (the same one, or
// one whose context says who the caller is), or writes the refusal to w
// (the status, a WWW-Authenticate challenge, when to try again) and
// returns false.
//
// The credential must be one a browser does not attach by itself, as it
// does a cookie: the Host check relies on a web page being unable to send
// it (see [Config].AllowHosts). [Bearer] is one; package identity's
// Resource, for OAuth access tokens, another.
type Authenticator interface {
	Authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool)
}

// Guard applies a Config: [Guard.Handler] in front of every path of a
// server, [Guard.Authenticate] in front of those that need a credential.
type Guard struct {
	hosts   *hostCheck
	origins *originCheck
	auth    Authenticator
}

// New checks cfg and returns its Guard; an error says which allowed host
// or origin is malformed and how to write it.
func New(cfg Config) (*Guard, error) {
	origins, err := newOriginCheck(cfg.AllowOrigins)
	if err != nil {
		return nil, err
	}
	hosts, err := newHostCheck(cfg)
	if err != nil {
		return nil, err
	}
	return &Guard{hosts: hosts, origins: origins, auth: cfg.Auth}, nil
}

// Handler passes to h the requests that pass the Host and Origin checks,
// and answers the others with 403. It covers every path, those without a
// credential (a health check) included.
func (g *Guard) Handler(h http.Handler) http.Handler {
	return g.hosts.handler(g.origins.handler(h))
}

// Authenticate passes to h the requests Config.Auth admits; without Auth,
// every request.
func (g *Guard) Authenticate(h http.Handler) http.Handler {
	if g.auth == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r, ok := g.auth.Authenticate(w, r); ok {
			h.ServeHTTP(w, r)
		}
	})
}
