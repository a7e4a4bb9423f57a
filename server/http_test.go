package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/httpguard"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTP serves s on a free loopback port until the test ends and
// returns the base URL and a function that stops the server and returns
// what HTTPServer.Serve returned.
func serveHTTP(t testing.TB, s *Server, cfg HTTPConfig) (base string, stop func() error) {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	hs, err := s.ListenHTTP(cfg)
	if err != nil {
		t.Fatalf("ListenHTTP: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := background(func() error { return hs.Serve(ctx) })
	var result error
	var stopped bool
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			result = wait(t, served, "Serve to return")
		}
		return result
	}
	t.Cleanup(func() { stop() })
	return "http://" + hs.Addr().String(), stop
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP connects an SDK client to the streamable endpoint at base.
func connectHTTP(t testing.TB, base, token, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	transport := &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}
	if token != "" {
		transport.HTTPClient = &http.Client{Transport: bearerTransport{token}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "0.1"}, opts)
	return testsupport.ConnectClient(t, client, transport, version)
}

// initializeBody is a legacy initialize request.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// post sends a raw JSON-RPC POST to /mcp with the given extra headers.
func post(t *testing.T, base, body string, headers map[string]string) *http.Response {
	t.Helper()
	return testsupport.Post(t, base+"/mcp", body, headers)
}

func TestHTTPStatefulServesBothProtocolVersions(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{})
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			asked := make(chan string, 10)
			cs := connectHTTP(t, base, "", version, answering("accept", true, asked))
			// A 2026-07-28 client probes server/discover first; a stateful
			// server cannot serve that protocol, so both end on the
			// initialize handshake.
			if got := cs.InitializeResult().ProtocolVersion; got != legacyVersion {
				t.Errorf("negotiated %s, want %s", got, legacyVersion)
			}
			if tools := listTools(t, cs); tools["echo"] == nil {
				t.Fatalf("echo not listed over HTTP: %v", tools)
			}
			res := call(t, cs, "echo", map[string]any{"context": "test", "subject": "over http"})
			if res.IsError || !strings.Contains(envelope(t, res).Output, "over http") {
				t.Errorf("echo over HTTP: %s", text(res))
			}
			path := tempPath(t, "touched")
			if res := call(t, cs, "touch", map[string]any{"context": "test", "path": path}); res.IsError || !exists(t, path) {
				t.Errorf("approved touch over HTTP did not run: %s", text(res))
			}
		})
	}
}

func TestHTTPStatelessServesModernClientsAndRefusesLegacyApproval(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{Stateless: true})

	asked := make(chan string, 10)
	modern := connectHTTP(t, base, "", modernVersion, answering("accept", true, asked))
	if got := modern.InitializeResult().ProtocolVersion; got != modernVersion {
		t.Errorf("stateless server negotiated %s with a modern client, want %s", got, modernVersion)
	}
	if res := call(t, modern, "echo", map[string]any{"context": "test", "subject": "stateless"}); res.IsError {
		t.Errorf("echo over stateless HTTP: %s", text(res))
	}
	path := tempPath(t, "touched")
	if res := call(t, modern, "touch", map[string]any{"context": "test", "path": path}); res.IsError || !exists(t, path) {
		t.Errorf("a modern client could not approve over stateless HTTP: %s", text(res))
	}

	legacy := connectHTTP(t, base, "", legacyVersion, answering("accept", true, asked))
	path = tempPath(t, "touched")
	res := call(t, legacy, "touch", map[string]any{"context": "test", "path": path})
	if !res.IsError || !strings.Contains(text(res), "stateless") {
		t.Errorf("result = %q (isError %v), want a refusal naming stateless HTTP", text(res), res.IsError)
	}
	if exists(t, path) {
		t.Fatal("a gated command ran without approval over stateless HTTP")
	}
}

func TestHTTPRequiresTheBearerToken(t *testing.T) {
	const token = "correct-horse-battery-staple"
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{Token: token})

	cases := []struct {
		name, header, challenge string
	}{
		{"missing", "", `Bearer realm="fisk-mcp"`},
		{"wrong scheme", "Basic " + token, `Bearer realm="fisk-mcp"`},
		{"wrong token", "Bearer not-the-token", `error="invalid_token"`},
		{"token prefix", "Bearer " + token[:10], `error="invalid_token"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			headers := map[string]string{}
			if c.header != "" {
				headers["Authorization"] = c.header
			}
			resp := post(t, base, initializeBody, headers)
			if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), c.challenge) {
				t.Errorf("status %d, WWW-Authenticate %q; want 401 with %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), c.challenge)
			}
		})
	}
	cs := connectHTTP(t, base, token, legacyVersion, nil)
	if res := call(t, cs, "echo", map[string]any{"context": "test", "subject": "authorised"}); res.IsError {
		t.Errorf("authorised call failed: %s", text(res))
	}
}

// Wrong bearer tokens are bounded per address: past the allowance every
// request from that address is refused with 429 and Retry-After, the right
// token included, and the log says so once; another address is not held
// to it.
func TestHTTPBoundsWrongBearerTokensPerAddress(t *testing.T) {
	const token = "correct-horse-battery-staple"
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{Token: token})
	from := func(local string, bearer string) *http.Response {
		t.Helper()
		dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/mcp", strings.NewReader(initializeBody))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := client.Do(req)
		if err != nil {
			if local != "127.0.0.1" {
				t.Skipf("cannot send from %s here: %v", local, err)
			}
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
		return resp
	}
	for i := range httpguard.DefaultBurst {
		if resp := from("127.0.0.1", fmt.Sprintf("guess-%02d-of-the-token", i)); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: status %d, want 401", i+1, resp.StatusCode)
		}
	}
	for _, bearer := range []string{"one-guess-too-many-token", token} {
		resp := from("127.0.0.1", bearer)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "try again in") {
			t.Errorf("past the allowance, token %q: status %d, Retry-After %q, body %q; want 429 saying when to try again", bearer, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	if n := len(logs.records("refusing bearer tokens from an address that sent too many wrong ones")); n != 1 {
		t.Errorf("the allowance running out was logged %d times, want once", n)
	}
	if resp := from("127.0.0.2", token); resp.StatusCode != http.StatusOK {
		t.Errorf("another address with the right token: status %d, want 200", resp.StatusCode)
	}
}

func TestHTTPRefusesCrossOriginRequests(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{AllowOrigins: []string{"https://ide.example"}})

	cases := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"null origin", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"allowed origin", map[string]string{"Origin": "https://ide.example"}, http.StatusOK},
		{"same origin", map[string]string{"Origin": base}, http.StatusOK},
		{"no origin", nil, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if resp := post(t, base, initializeBody, c.headers); resp.StatusCode != c.want {
				t.Errorf("status %d, want %d", resp.StatusCode, c.want)
			}
		})
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin GET: status %d, want 403", resp.StatusCode)
	}
}

func TestHTTPRefusesDNSRebinding(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{})
	port := base[strings.LastIndex(base, ":"):]

	if resp := post(t, base, initializeBody, map[string]string{"Host": "attacker.example" + port}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST with a foreign Host: status %d, want 403", resp.StatusCode)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/healthz", nil)
	req.Host = "attacker.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("healthz with a foreign Host: status %d, want 403", resp.StatusCode)
	}
	if resp := post(t, base, initializeBody, map[string]string{"Host": "localhost" + port}); resp.StatusCode != http.StatusOK {
		t.Errorf("POST with Host localhost: status %d, want 200", resp.StatusCode)
	}
}

func TestHTTPLimitsRequestBodies(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{MaxBodyBytes: 1024})
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + strings.Repeat("x", 2048) + `","version":"0"}}}`
	if resp := post(t, base, big, nil); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: status %d, want 413", resp.StatusCode)
	}
	if resp := post(t, base, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("small body: status %d, want 200", resp.StatusCode)
	}
}

// Headers are bounded far below net/http's 1 MiB: a request with 100 KiB
// of them is refused (431), one with the headers a client sends is served.
func TestHTTPLimitsRequestHeaders(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{})
	if resp := post(t, base, initializeBody, map[string]string{"X-Padding": strings.Repeat("p", 100<<10)}); resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("100 KiB of headers: status %d, want 431", resp.StatusCode)
	}
	if resp := post(t, base, initializeBody, map[string]string{"X-Padding": strings.Repeat("p", 8<<10)}); resp.StatusCode != http.StatusOK {
		t.Errorf("8 KiB of headers: status %d, want 200", resp.StatusCode)
	}
}

func TestHealthzReportsTheToolCount(t *testing.T) {
	set := fixtureSet(t, exposure.Policy{})
	s, _ := newServer(t, Config{}, set)
	base, _ := serveHTTP(t, s, HTTPConfig{Token: "a-token-that-healthz-does-not-need"})
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Tools  int    `json:"tools"`
		Listed int    `json:"listed"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || body.Status != "ok" || body.Tools != set.Len() || body.Listed != set.Len() {
		t.Errorf("healthz = %d %+v, want 200 ok with %d tools, all listed", resp.StatusCode, body, set.Len())
	}

	// Deferred, it still counts every tool served, and says how few are
	// listed.
	s, _ = newServer(t, Config{Defer: DeferAlways}, set)
	base, _ = serveHTTP(t, s, HTTPConfig{})
	resp2, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	body.Tools, body.Listed = 0, 0
	if err := json.NewDecoder(resp2.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Tools != set.Len() || body.Listed != len(deferredList) {
		t.Errorf("deferred healthz = %+v, want %d tools, %d listed", body, set.Len(), len(deferredList))
	}
}

func TestListenRefusesUnauthenticatedNonLoopbackAddresses(t *testing.T) {
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	if _, err := s.ListenHTTP(HTTPConfig{Addr: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("non-loopback without a token: err = %v, want a refusal naming the token", err)
	}
	for _, cfg := range []HTTPConfig{{Addr: "0.0.0.0:0", Token: "a-long-enough-token"}, {Addr: "0.0.0.0:0", InsecureNoAuth: true}} {
		hs, err := s.ListenHTTP(cfg)
		if err != nil {
			t.Errorf("ListenHTTP(%+v): %v", cfg, err)
			continue
		}
		hs.Close()
	}
	if !strings.Contains(logs.String(), "without authentication") {
		t.Errorf("InsecureNoAuth on a non-loopback address was not logged as a warning:\n%s", logs)
	}
}

func TestListenRefusalWithoutATokenIsAnUnauthenticatedError(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	_, err := s.ListenHTTP(HTTPConfig{Addr: "0.0.0.0:0"})
	var unauthenticated *UnauthenticatedError
	if !errors.As(fmt.Errorf("starting: %w", err), &unauthenticated) {
		t.Fatalf("err = %v (%T), want an *UnauthenticatedError through wrapping", err, err)
	}
	if unauthenticated.Addr == nil || httpguard.IsLoopback(unauthenticated.Addr) {
		t.Errorf("refused address = %v, want the non-loopback address bound", unauthenticated.Addr)
	}
	if want := "refusing to serve 0.0.0.0:0 without authentication: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
	for _, cfg := range []HTTPConfig{{Addr: "127.0.0.1:0", AllowHosts: []string{"http://x"}}, {Addr: "256.0.0.1:0"}} {
		hs, err := s.ListenHTTP(cfg)
		if err == nil {
			hs.Close()
			t.Errorf("ListenHTTP(%+v) succeeded", cfg)
		} else if errors.As(err, &unauthenticated) {
			t.Errorf("ListenHTTP(%+v): %v is an *UnauthenticatedError", cfg, err)
		}
	}
}

func TestHTTPServerAddrIsTheBoundAddressAndCloseReleasesIt(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	hs, err := s.ListenHTTP(HTTPConfig{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := hs.Addr().(*net.TCPAddr)
	if !ok || addr.Port == 0 || !addr.IP.IsLoopback() {
		t.Fatalf("Addr() = %v, want the loopback address with the port chosen", hs.Addr())
	}
	if err := hs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ln, err := net.Listen("tcp", addr.String())
	if err != nil {
		t.Fatalf("the address is still held after Close: %v", err)
	}
	ln.Close()
}

// Serve returns early, with the error, only when serving fails; a closed
// listener is such a failure, and Serve does not wait for its context.
func TestHTTPServerServeReturnsWhenServingFails(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	hs, err := s.ListenHTTP(HTTPConfig{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	hs.Close()
	if err := wait(t, background(func() error { return hs.Serve(t.Context()) }), "Serve to return"); err == nil {
		t.Error("Serve on a closed listener returned nil, want the serving error")
	}
}

func TestSSEResponsesArePrimedWithAnEventIDAndRetryHint(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{RetryHint: 1500 * time.Millisecond})
	resp := post(t, base, initializeBody, nil)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q, want an SSE stream", ct)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	body := string(data)
	if !strings.HasPrefix(body, "retry: 1500\n\n") {
		t.Errorf("stream does not start with the retry hint:\n%s", body)
	}
	prime := strings.Index(body, "event: prime\nid: ")
	message := strings.Index(body, "event: message\nid: ")
	if prime < 0 || message < prime {
		t.Errorf("stream lacks a priming event before an identified message:\n%s", body)
	}
}

func TestHTTPCancelKillsTheProcessGroup(t *testing.T) {
	cases := []struct {
		name      string
		stateless bool
		version   string
	}{
		// notifications/cancelled reaches the session that runs the call.
		{"stateful", false, legacyVersion},
		// The POST is the whole request: the client abandoning it cancels.
		{"stateless", true, modernVersion},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
			base, _ := serveHTTP(t, s, HTTPConfig{Stateless: c.stateless})
			cs := connectHTTP(t, base, "", c.version, nil)
			pidFile, written := pidFIFO(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := background(func() error {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn", Arguments: map[string]any{"context": "test", "for": "1h", "pid-file": pidFile}})
				return err
			})
			pids := watchPids(t, wait(t, written, "spawn's pids"))
			cancel()
			wait(t, done, "the cancelled call")
			awaitExit(t, pids)
		})
	}
}

func TestSSEStreamsResumeFromTheLastEventID(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{})
	resp := post(t, base, initializeBody, nil)
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	session := resp.Header.Get("Mcp-Session-Id")
	var primeID string
	for _, line := range strings.Split(string(data), "\n") {
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			primeID = id
			break
		}
	}
	if session == "" || primeID == "" {
		t.Fatalf("no session id (%q) or priming event id in:\n%s", session, data)
	}

	// A client whose connection dropped after the priming event asks for
	// what followed it, and gets the initialize result again.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", legacyVersion)
	req.Header.Set("Last-Event-ID", primeID)
	replay, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer replay.Body.Close()
	body, err := io.ReadAll(replay.Body)
	if err != nil {
		t.Fatal(err)
	}
	if replay.StatusCode != http.StatusOK || !strings.Contains(string(body), `"protocolVersion":"2025-11-25"`) {
		t.Errorf("resuming after %s: status %d, body:\n%s", primeID, replay.StatusCode, body)
	}
}
