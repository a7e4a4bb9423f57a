package testsupport

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The protocol versions client-facing behaviour is proven under: the last
// one with the initialize handshake, where the server asks for approval, and
// the first where the client asks, which a v1.8.0 SDK client asks for by
// default.
const (
	LegacyProtocol = "2025-11-25"
	ModernProtocol = "2026-07-28"
)

// Protocols lists both, for a test to run under each.
var Protocols = []string{LegacyProtocol, ModernProtocol}

// Connect connects client to srv over in-memory transports at the given
// protocol version. Both ends of the session close when the test ends.
func Connect(t testing.TB, srv *mcp.Server, client *mcp.Client, version string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return ConnectClient(t, client, ct, version)
}

// ConnectClient connects client over tr at the given protocol version. The
// session closes when the test ends.
func ConnectClient(t testing.TB, client *mcp.Client, tr mcp.Transport, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := client.Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client connect (%s): %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Call calls the tool name with args and fails the test on a protocol
// error; a tool error is a result like any other.
func Call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return res
}

// ListTools returns every tool cs's server lists, by name, following pages;
// a name listed twice is an error of the test.
func ListTools(t testing.TB, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	tools := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatalf("listing tools: %v", err)
		}
		if _, dup := tools[tool.Name]; dup {
			t.Errorf("tool %q listed twice", tool.Name)
		}
		tools[tool.Name] = tool
	}
	return tools
}

// Text joins a result's text blocks, one per line.
func Text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// CommandResult is the envelope a command tool returns, as a client decodes
// it from the wire, independently of the server's Go type.
type CommandResult struct {
	Command    string `json:"command"`
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal"`
	Output     string `json:"output"`
	Truncated  bool   `json:"truncated"`
	BytesTotal int64  `json:"bytes_total"`
	DurationMS int64  `json:"duration_ms"`
}

// Envelope decodes a result's structured content as a command envelope and
// fails the test when there is none, or it holds a field CommandResult does
// not know.
func Envelope(t testing.TB, res *mcp.CallToolResult) CommandResult {
	t.Helper()
	return Structured[CommandResult](t, res)
}

// Structured decodes a result's structured content into a T and fails the
// test when there is none, or it holds a field T does not know.
func Structured[T any](t testing.TB, res *mcp.CallToolResult) T {
	t.Helper()
	var v T
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil || res.StructuredContent == nil {
		t.Fatalf("no structured content (%v): %s", err, Text(res))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("structured content %s is not a %T: %v", raw, v, err)
	}
	return v
}

// Post sends body as a raw JSON-RPC POST to url, with the headers a
// streamable HTTP client sends and then the given ones ("Host" sets the
// request's host). The response body closes when the test ends.
func Post(t testing.TB, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
