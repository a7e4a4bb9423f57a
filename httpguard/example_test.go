package httpguard_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/fisk-mcp/fisk-mcp/httpguard"
)

// A server puts the Host and Origin checks in front of every path, and the
// token check in front of the endpoint that needs it; a health check
// answers without a token.
func Example() {
	guard, err := httpguard.New(httpguard.Config{
		Addr: "127.0.0.1:8080",
		Auth: httpguard.NewBearer("a-token-of-thirty-two-characters", nil),
	})
	if err != nil {
		panic(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "served") })
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard.Authenticate(ok))
	mux.Handle("/healthz", ok)
	srv := httptest.NewServer(guard.Handler(mux))
	defer srv.Close()

	for _, c := range []struct{ name, path, host, token string }{
		{"health check", "/healthz", "", ""},
		{"no token", "/mcp", "", ""},
		{"the token", "/mcp", "", "a-token-of-thirty-two-characters"},
		{"a rebinding page's Host", "/mcp", "attacker.example", ""},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+c.path, nil)
		if c.host != "" {
			req.Host = c.host
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Printf("%s, %s: %d\n", c.path, c.name, resp.StatusCode)
	}
	// Output:
	// /healthz, health check: 200
	// /mcp, no token: 401
	// /mcp, the token: 200
	// /mcp, a rebinding page's Host: 403
}
