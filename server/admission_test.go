package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// lanAddr is the local address of a connection that arrived on a
// non-loopback interface.
var lanAddr = &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 8080}

// serveOn passes one request naming host to h as if it had arrived on the
// local address local, and returns the response.
func serveOn(t *testing.T, h http.Handler, local net.Addr, method, path, host string, headers map[string]string) *http.Response {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(initializeBody)
	}
	req := httptest.NewRequestWithContext(context.WithValue(t.Context(), http.LocalAddrContextKey, local), method, path, body)
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// handlerFor is the HTTP surface ListenHTTP would serve for cfg.
func handlerFor(t *testing.T, s *Server, cfg HTTPConfig) http.Handler {
	t.Helper()
	h, err := s.httpHandler(cfg.withDefaults(s.cfg.DrainTimeout))
	if err != nil {
		t.Fatalf("httpHandler: %v", err)
	}
	return h
}

// The guard's checks are httpguard's, tested there; these prove that the
// HTTP surface applies them, from the HTTPConfig the command line fills.

// The reported attack: a page on evil.example, rebound to the server's LAN
// address, is same-origin to the browser (Origin matches Host), so only the
// Host name shows that the page is not the server's.
func TestHTTPWithoutTokenRefusesRebindingOnNonLoopbackAddresses(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	h := handlerFor(t, s, HTTPConfig{Addr: "0.0.0.0:8080", InsecureNoAuth: true})
	resp := serveOn(t, h, lanAddr, http.MethodPost, "/mcp", "evil.example:8080", map[string]string{"Origin": "http://evil.example:8080"})
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "--allow-host evil.example") {
		t.Errorf("rebound request: status %d, body %q; want 403 naming --allow-host", resp.StatusCode, body)
	}
	resp = serveOn(t, h, lanAddr, http.MethodPost, "/mcp", "192.0.2.10:8080", map[string]string{"Origin": "http://192.0.2.10:8080"})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("request naming the server's IP: status %d, want 200", resp.StatusCode)
	}
}

// A proxy on the same machine may forward requests by a public name to a
// loopback listener once that name is allowed; other names stay refused.
func TestHTTPAllowedHostsReachALoopbackListener(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{AllowHosts: []string{"mcp.example.com"}})
	port := base[strings.LastIndex(base, ":"):]
	cases := []struct {
		host string
		want int
	}{
		{"mcp.example.com", http.StatusOK},
		{"mcp.example.com" + port, http.StatusOK},
		{"localhost" + port, http.StatusOK},
		{"attacker.example" + port, http.StatusForbidden},
	}
	for _, c := range cases {
		if resp := post(t, base, initializeBody, map[string]string{"Host": c.host}); resp.StatusCode != c.want {
			t.Errorf("POST with Host %q: status %d, want %d", c.host, resp.StatusCode, c.want)
		}
	}
}

func TestListenRefusesMalformedAllowedHosts(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	for _, host := range []string{"", "http://mcp.example.com", "mcp.example.com/mcp", "user@mcp.example.com", "*.example.com", "a b"} {
		hs, err := s.ListenHTTP(HTTPConfig{Addr: "127.0.0.1:0", AllowHosts: []string{host}})
		if err == nil {
			hs.Close()
			t.Errorf("allowed host %q was accepted", host)
			continue
		}
		if !strings.Contains(err.Error(), "host name") {
			t.Errorf("allowed host %q: error %q does not say what to give", host, err)
		}
	}
}

// With a real listener on a non-loopback interface of this machine, when it
// has one: a request naming a foreign host is refused, one naming the
// address is served.
func TestHTTPNonLoopbackListenerRefusesForeignHosts(t *testing.T) {
	ip := nonLoopbackIP(t)
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{Addr: net.JoinHostPort(ip.String(), "0"), InsecureNoAuth: true})
	port := base[strings.LastIndex(base, ":"):]
	resp := post(t, base, initializeBody, map[string]string{"Host": "evil.example" + port, "Origin": "http://evil.example" + port})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("rebound request: status %d, want 403", resp.StatusCode)
	}
	if resp := post(t, base, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("request naming the address: status %d, want 200", resp.StatusCode)
	}
}

// nonLoopbackIP returns an IPv4 address of a non-loopback interface, or
// skips the test when the machine has none.
func nonLoopbackIP(t *testing.T) net.IP {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("listing interface addresses: %v", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil && !n.IP.IsLinkLocalUnicast() {
			return n.IP
		}
	}
	t.Skip("no non-loopback IPv4 address on this machine")
	return nil
}
