package httpguard

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// lanAddr is the local address of a connection that arrived on a
// non-loopback interface.
var lanAddr = &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 8080}

// loopbackAddr is the local address of a connection on loopback.
var loopbackAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}

// served answers every request that reaches it with 200.
var served = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })

// guarded is served behind a Guard of cfg.
func guarded(t *testing.T, cfg Config) http.Handler {
	t.Helper()
	g, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g.Handler(g.Authenticate(served))
}

// serveOn passes one request naming host to h as if it had arrived on the
// local address local (nil: unknown), and returns the response.
func serveOn(t *testing.T, h http.Handler, local net.Addr, method, host string, headers map[string]string) *http.Response {
	t.Helper()
	ctx := t.Context()
	if local != nil {
		ctx = context.WithValue(ctx, http.LocalAddrContextKey, local)
	}
	req := httptest.NewRequestWithContext(ctx, method, "/mcp", nil)
	req.Host = host
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// admitAll is an Authenticator that admits every request: the Host check
// depends only on whether there is one.
type admitAll struct{}

func (admitAll) Authenticate(_ http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	return r, true
}

func TestHostCheckOnNonLoopbackAddresses(t *testing.T) {
	open := Config{Addr: "mcp.lan:8080"}
	openAllow := Config{Addr: "mcp.lan:8080", AllowHosts: []string{"Proxy.Example"}}
	tokenOnly := Config{Addr: "mcp.lan:8080", Auth: admitAll{}}
	tokenAllow := Config{Addr: "mcp.lan:8080", Auth: admitAll{}, AllowHosts: []string{"proxy.example"}}
	cases := []struct {
		name string
		cfg  Config
		host string
		want int
	}{
		{"no token: foreign name", open, "evil.example:8080", http.StatusForbidden},
		{"no token: foreign name without port", open, "evil.example", http.StatusForbidden},
		{"no token: localhost on a LAN connection", open, "localhost:8080", http.StatusForbidden},
		{"no token: empty Host", open, "", http.StatusForbidden},
		{"no token: IPv4 literal", open, "192.0.2.10:8080", http.StatusOK},
		{"no token: another IPv4 literal", open, "198.51.100.7", http.StatusOK},
		{"no token: IPv6 literal", open, "[2001:db8::1]:8080", http.StatusOK},
		{"no token: bound host name", open, "mcp.lan:8080", http.StatusOK},
		{"no token: bound host name in capitals with a trailing dot", open, "MCP.LAN.:8080", http.StatusOK},
		{"no token: allowed host", openAllow, "proxy.example", http.StatusOK},
		{"no token: allowed host, other case and a port", openAllow, "PROXY.example:443", http.StatusOK},
		{"no token: foreign name despite allowed hosts", openAllow, "evil.example", http.StatusForbidden},
		{"token: any name, since browsers cannot send the token", tokenOnly, "evil.example:8080", http.StatusOK},
		{"token and allowed hosts: foreign name", tokenAllow, "evil.example:8080", http.StatusForbidden},
		{"token and allowed hosts: allowed host", tokenAllow, "proxy.example", http.StatusOK},
		{"token and allowed hosts: IP literal", tokenAllow, "192.0.2.10:8080", http.StatusOK},
		{"token and allowed hosts: bound host name", tokenAllow, "mcp.lan", http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := serveOn(t, guarded(t, c.cfg), lanAddr, http.MethodGet, c.host, nil)
			if resp.StatusCode != c.want {
				body, _ := io.ReadAll(resp.Body)
				t.Errorf("Host %q: status %d (%s), want %d", c.host, resp.StatusCode, body, c.want)
			}
		})
	}
}

// On a loopback connection only loopback names pass, and the names in
// AllowHosts; a refusal says which flag allows a name.
func TestHostCheckOnLoopbackAddresses(t *testing.T) {
	h := guarded(t, Config{Addr: "127.0.0.1:8080", AllowHosts: []string{"mcp.example.com"}})
	for host, want := range map[string]int{
		"localhost:8080":        http.StatusOK,
		"127.0.0.1:8080":        http.StatusOK,
		"[::1]:8080":            http.StatusOK,
		"mcp.example.com":       http.StatusOK,
		"attacker.example:8080": http.StatusForbidden,
		"192.0.2.10:8080":       http.StatusForbidden,
	} {
		resp := serveOn(t, h, loopbackAddr, http.MethodGet, host, nil)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want || (want == http.StatusForbidden && !strings.Contains(string(body), "--allow-host")) {
			t.Errorf("Host %q: status %d (%s), want %d", host, resp.StatusCode, body, want)
		}
	}
}

// A handler mounted on a server that does not record local addresses gets
// the stricter, non-loopback rule.
func TestHostCheckTreatsAnUnknownLocalAddressAsNonLoopback(t *testing.T) {
	h := guarded(t, Config{Addr: "0.0.0.0:8080"})
	if resp := serveOn(t, h, nil, http.MethodGet, "evil.example", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want 403", resp.StatusCode)
	}
}

func TestNewRefusesMalformedAllowedHosts(t *testing.T) {
	for _, host := range []string{"", "http://mcp.example.com", "mcp.example.com/mcp", "user@mcp.example.com", "*.example.com", "a b"} {
		_, err := New(Config{AllowHosts: []string{host}})
		if err == nil || !strings.Contains(err.Error(), "host name") {
			t.Errorf("allowed host %q: error %v, want one saying what to give", host, err)
		}
	}
}

// The Host and Origin headers are the client's to choose; the refusal
// repeats them quoted and cut, never a formatting character as written.
func TestRefusalsRepeatTheClientsHeadersEscapedAndCut(t *testing.T) {
	h := guarded(t, Config{Addr: "127.0.0.1:0"})
	hostile := "evil\u202e" + strings.Repeat("x", 10_000) + ".example"
	for name, headers := range map[string]struct {
		host   string
		origin string
	}{
		"host":   {hostile, ""},
		"origin": {"127.0.0.1:8080", "http://" + hostile},
	} {
		hdr := map[string]string{}
		if headers.origin != "" {
			hdr["Origin"] = headers.origin
		}
		resp := serveOn(t, h, loopbackAddr, http.MethodPost, headers.host, hdr)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "\u202e") || len(body) > 1000 {
			t.Errorf("%s: status %d, %d bytes: %.300q", name, resp.StatusCode, len(body), body)
		}
	}
}
