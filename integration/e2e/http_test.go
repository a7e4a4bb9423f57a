package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// httpServer is fisk-mcp serving streamable HTTP on a port it chose.
type httpServer struct {
	url   string // the /mcp endpoint, as announced on stderr
	token string
	log   *logBuffer
	cmd   *exec.Cmd
	stop  func() // SIGTERM, and require a clean exit; once, also at cleanup
}

// startHTTP starts fisk-mcp serve --http 127.0.0.1:0 and reads the endpoint
// it announces. At cleanup it sends SIGTERM and requires a clean exit.
func startHTTP(t *testing.T, token string, extra ...string) *httpServer {
	t.Helper()
	a := append([]string{"--http", "127.0.0.1:0"}, extra...)
	if token != "" {
		path := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		a = append([]string{"--token-file", path}, a...)
	}
	return startHTTPCommand(t, exec.Command(fiskMCP, serveArgs(append(a, fixtureBin)...)...), token)
}

// startHTTPCommand starts cmd, a fisk-mcp serving HTTP on a port it
// chooses, as startHTTP does.
func startHTTPCommand(t *testing.T, cmd *exec.Cmd, token string) *httpServer {
	t.Helper()
	log := newLogBuffer()
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			if err := <-exited; err != nil {
				t.Errorf("fisk-mcp did not exit cleanly on SIGTERM: %v\n%s", err, log.String())
			}
		})
	}
	t.Cleanup(stop)
	rec := log.waitRecord(t, "announcing the endpoint", func(r map[string]any) bool {
		return r["msg"] == "serving MCP over streamable HTTP" || r["level"] == "ERROR"
	})
	url, _ := rec["url"].(string)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") || strings.HasSuffix(url, ":0/mcp") {
		t.Fatalf("announced endpoint %q is not the bound address: %v", url, rec)
	}
	return &httpServer{url: url, token: token, log: log, cmd: cmd, stop: stop}
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.base.RoundTrip(r)
}

// connect opens an SDK client session over streamable HTTP.
func (h *httpServer) connect(t *testing.T, c client) *mcp.ClientSession {
	t.Helper()
	transport := &mcp.StreamableClientTransport{
		Endpoint:   h.url,
		HTTPClient: &http.Client{Transport: bearer{token: h.token, base: http.DefaultTransport}},
		MaxRetries: -1,
	}
	cs, err := c.newClient("e2e-http").
		Connect(t.Context(), transport, &mcp.ClientSessionOptions{ProtocolVersion: c.protocol})
	if err != nil {
		t.Fatalf("connecting over HTTP: %v\n%s", err, h.log.String())
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// post sends one raw JSON-RPC initialize to the endpoint.
func (h *httpServer) post(t *testing.T, body []byte, header map[string]string) int {
	t.Helper()
	resp := testsupport.Post(t, h.url, string(body), header)
	resp.Body.Close()
	return resp.StatusCode
}

var initialize = []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)

func TestHTTPServesToolsAndApprovalUnderBothProtocols(t *testing.T) {
	h := startHTTP(t, "a-long-enough-test-token")
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			cs := h.connect(t, client{protocol: proto, elicit: answer(yes, &asked, &mu)})
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil || len(tools.Tools) != len(fixtureTools) {
				t.Fatalf("tools: %v %v", err, tools)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: args("subject", "over http")})
			if err != nil || res.IsError {
				t.Fatalf("echo: %v %v", err, res)
			}
			path := filepath.Join(t.TempDir(), "touched")
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
			if err != nil || res.IsError || !exists(path) {
				t.Fatalf("approved touch did not run: %v %s", err, text(res))
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 {
				t.Errorf("asked %d times", len(asked))
			}
		})
	}
}

func TestHTTPRefusesBadRequests(t *testing.T) {
	const token = "a-long-enough-test-token"
	h := startHTTP(t, token, "--allow-origin", "https://allowed.example")
	auth := "Bearer " + token
	cases := []struct {
		name   string
		body   []byte
		header map[string]string
		want   int
	}{
		{"no token", initialize, nil, http.StatusUnauthorized},
		{"wrong token", initialize, map[string]string{"Authorization": "Bearer wrong-token-value"}, http.StatusUnauthorized},
		{"foreign origin", initialize, map[string]string{"Authorization": auth, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"rebinding host", initialize, map[string]string{"Authorization": auth, "Host": "evil.example"}, http.StatusForbidden},
		{"oversized body", bytes.Repeat([]byte(" "), 5<<20), map[string]string{"Authorization": auth}, http.StatusRequestEntityTooLarge},
		{"allowed origin", initialize, map[string]string{"Authorization": auth, "Origin": "https://allowed.example"}, http.StatusOK},
		{"good request", initialize, map[string]string{"Authorization": auth}, http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := h.post(t, tc.body, tc.header); got != tc.want {
				t.Errorf("status %d, want %d", got, tc.want)
			}
		})
	}

	resp, err := http.Get(strings.TrimSuffix(h.url, "/mcp") + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var health struct {
		Status string `json:"status"`
		Tools  int    `json:"tools"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&health); err != nil || resp.StatusCode != 200 || health.Status != "ok" || health.Tools != len(fixtureTools) {
		t.Errorf("healthz: %d %+v %v", resp.StatusCode, health, err)
	}
}

func TestHTTPStartupTellsHowToConnectWithoutRevealingTheToken(t *testing.T) {
	const token = "never-print-this-token-1234"
	h := startHTTP(t, token, "--name", "ops")
	rec := h.log.waitRecord(t, "with the claude mcp add line", func(r map[string]any) bool { return r["msg"] == "add it to Claude Code" })
	line, _ := rec["command"].(string)
	want := "claude mcp add --transport http ops " + h.url + " --header 'Authorization: Bearer ...'"
	if line != want {
		t.Errorf("claude line = %q\nwant          %q", line, want)
	}
	// The token must not appear anywhere: not in the log, not in output.
	cs := h.connect(t, client{protocol: modernProtocol})
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: args("subject", token)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text(res), token) {
		t.Errorf("the token reached a tool result: %s", text(res))
	}
	if strings.Contains(h.log.String(), token) {
		t.Errorf("the token reached the log")
	}
}

func TestHTTPStatelessRefusesApprovalToLegacyClients(t *testing.T) {
	h := startHTTP(t, "", "--stateless")
	var mu sync.Mutex
	var asked []string
	cs := h.connect(t, client{protocol: legacyProtocol, elicit: answer(yes, &asked, &mu)})
	path := filepath.Join(t.TempDir(), "touched")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || exists(path) {
		t.Fatalf("a stateless legacy session ran a gated tool: %s", text(res))
	}
	// The same server asks a 2026-07-28 client, which answers in its retry.
	cs2 := h.connect(t, client{protocol: modernProtocol, elicit: answer(yes, &asked, &mu)})
	res, err = cs2.CallTool(context.WithoutCancel(t.Context()), &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
	if err != nil || res.IsError || !exists(path) {
		t.Fatalf("a stateless 2026-07-28 session could not approve: %v %s", err, text(res))
	}
}

func TestHTTPCancellationKillsTheProcessGroup(t *testing.T) {
	h := startHTTP(t, "")
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			progressed := make(chan string, 16)
			cs := h.connect(t, client{protocol: proto, progress: progressTo(progressed)})
			before := len(h.log.finalCalls("spawn"))
			cancelKillsTheGroup(t, cs, h.log, progressed, before+1)
		})
	}
}
