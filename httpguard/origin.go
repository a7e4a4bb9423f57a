package httpguard

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/fisk-mcp/fisk-mcp/internal/echo"
)

// originCheck guards against cross-site requests: a page on another origin,
// open in a browser that can reach the server, must not drive it. The Host
// check does not see such a request (it names the server's own host), so
// the origin is what gives it away. The standard library's
// CrossOriginProtection covers unsafe methods (it also reads
// Sec-Fetch-Site); an Origin header on any method, GET included (an SSE
// stream), must be the server's own or allowed.
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
				// The Origin is the client's to choose: quoted and cut, as
				// every answer repeats what a caller gave.
				http.Error(w, "Forbidden: cross-origin request from "+echo.Quoted(origin)+"; if this origin is trusted, start fisk-mcp with --allow-origin for it", http.StatusForbidden)
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
