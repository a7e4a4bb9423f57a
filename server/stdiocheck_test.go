package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// rawStdio serves s over pipes to a raw peer that has completed the
// initialize handshake. ServeStdio's result arrives on served once the
// peer's input closes (at cleanup, or by calling hangUp).
func rawStdio(t *testing.T, s *Server) (peer *testsupport.RawPeer, served <-chan error, hangUp func()) {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	served = background(func() error { return s.ServeStdio(context.Background(), toServer, fromServer) })
	hangUp = func() { fromClient.Close() }
	t.Cleanup(func() {
		hangUp()
		wait(t, served, "ServeStdio to return")
		toClient.Close()
	})
	peer = testsupport.NewRawPeer(t, fromClient, toClient, guard)
	peer.Initialize(1, legacyVersion)
	return peer, served, hangUp
}

// refusal checks that msg is the JSON-RPC error JSON-RPC 2.0 prescribes for
// a line with no readable id, with the given code.
func refusal(t *testing.T, what string, msg testsupport.Message, code int) {
	t.Helper()
	id, hasID := msg["id"]
	e, _ := msg["error"].(map[string]any)
	if !hasID || id != nil || e == nil || e["code"] != float64(code) {
		t.Fatalf("%s got %.300s, want an error with code %d and id null", what, fmt.Sprint(msg), code)
	}
	if m, _ := e["message"].(string); !strings.Contains(m, "one JSON object on its own line") {
		t.Errorf("error message %q does not say what to send instead", m)
	}
}

func nested(depth int, inner string) string {
	return strings.Repeat("[", depth) + inner + strings.Repeat("]", depth)
}

// malformedLines are lines the SDK cannot read, with the error each gets.
var malformedLines = []struct {
	name, line string
	code       int
}{
	{"a word", "hello", -32700},
	{"a truncated object", `{"jsonrpc":"2.0","id":7,"method":"ping"`, -32700},
	{"two objects on one line", `{"jsonrpc":"2.0","id":7,"method":"ping"}{}`, -32700},
	{"nesting past encoding/json's 10,000 levels", nested(10_001, ""), -32700},
	{"terminal escapes and a bidi override", "\x1b]0;owned\x07\u202e hello", -32700},
	{"a number", "42", -32600},
	{"a string", `"ping"`, -32600},
	{"null", "null", -32600},
	{"an empty batch", "[]", -32600},
	{"a batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600},
	{"a batch with a repeated id", `[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600},
	{"an id that is an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},
	{"an id with a fraction", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600},
	{"an id one past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600},
	{"an id past int64", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, -32600},
	{"a negative id past -2^53", `{"jsonrpc":"2.0","id":-1e300,"method":"ping"}`, -32600},
	{"another version tag", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600},
	{"nesting past the SDK's 1,000 levels", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":` + nested(1001, "") + `}}`, -32600},
}

func TestServeStdioAnswersAMalformedLineAndKeepsServing(t *testing.T) {
	b := newBarrier()
	s, logs := newServer(t, Config{}, customSet(t, b.tool(t), echoTool(t)))
	peer, served, _ := rawStdio(t, s)
	peer.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
	wait(t, b.entered, "the held call to start")

	for i, tt := range malformedLines {
		peer.Send(tt.line)
		refusal(t, tt.name, peer.Next("the answer to "+tt.name), tt.code)
		resp := peer.Call(100+i, "tools/call", map[string]any{"name": "echo_json", "arguments": map[string]any{"word": tt.name}})
		if got := fmt.Sprint(resp["result"]); !strings.Contains(got, tt.name) {
			t.Fatalf("after %s, a call got %.300s, want its echo", tt.name, fmt.Sprint(resp))
		}
	}
	select {
	case err := <-served:
		t.Fatalf("ServeStdio returned while the client was still there: %v", err)
	default:
	}

	close(b.release)
	resp := peer.Response(2)
	if got := fmt.Sprint(resp["result"]); !strings.Contains(got, "released:true") {
		t.Errorf("the call in flight across the malformed lines got %.300s, want its own result", fmt.Sprint(resp))
	}
	refused := logs.records("refused a malformed message from the client")
	if len(refused) != len(malformedLines) {
		t.Fatalf("%d refusals logged, want %d:\n%s", len(refused), len(malformedLines), logs)
	}
	for _, rec := range refused {
		line, _ := rec["line"].(string)
		if strings.ContainsFunc(line, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) {
			t.Errorf("logged line %q carries control or format characters", line)
		}
		if len(line) > 4*excerptBytes+40 {
			t.Errorf("logged %d bytes of a line, want at most an excerpt", len(line))
		}
	}
}

// echoLine is a call of echo_json whose line is exactly n bytes long.
func echoLine(t *testing.T, id, n int) string {
	t.Helper()
	frame := func(word string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo_json","arguments":{"word":%q}}}`, id, word)
	}
	pad := n - len(frame(""))
	if pad < 0 {
		t.Fatalf("a line of %d bytes cannot hold a call", n)
	}
	return frame(strings.Repeat("x", pad))
}

func TestServeStdioServesALineUpToTheBoundAndRefusesALongerOne(t *testing.T) {
	s, logs := newServer(t, Config{}, customSet(t, echoTool(t)))
	peer, _, _ := rawStdio(t, s)

	peer.Send(echoLine(t, 2, maxStdioLine+1))
	refusal(t, "an oversized line", peer.Next("the answer to an oversized line"), -32600)
	rec := logs.records("refused a malformed message from the client")
	if len(rec) != 1 || rec[0]["bytes"] != float64(maxStdioLine+1) {
		t.Errorf("refusal logged as %v, want one record counting the line's %d bytes", rec, maxStdioLine+1)
	}

	resp := peer.Call(3, "ping", nil)
	if resp["error"] != nil {
		t.Fatalf("ping after the oversized line: %v", resp)
	}
	peer.Send(echoLine(t, 4, maxStdioLine))
	resp = peer.Response(4)
	if r, _ := resp["result"].(map[string]any); r == nil || r["isError"] == true {
		t.Fatalf("a line of exactly %d bytes was not served: %.300s", maxStdioLine, fmt.Sprint(resp))
	}
}

// TestServeStdioAnswersEveryNumericIDItAcceptsWithThatID sends the ids at
// the edges of what the server accepts: each answer carries the id sent.
func TestServeStdioAnswersEveryNumericIDItAcceptsWithThatID(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	peer, _, _ := rawStdio(t, s)
	for _, id := range []string{"0", "-0", "9007199254740991", "-9007199254740991", "1e2", "7.0"} {
		peer.Send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		msg := peer.Next("the answer to a ping with id " + id)
		var want float64
		if _, err := fmt.Sscan(id, &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := msg["id"].(float64); !ok || got != want || msg["error"] != nil {
			t.Errorf("ping with id %s got %.200s, want a result with that id", id, fmt.Sprint(msg))
		}
	}
}

func TestServeStdioToleratesSpaceAroundALineAndBlankLines(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	peer, _, _ := rawStdio(t, s)
	peer.Send("")
	peer.Send(" \t")
	peer.Send("  " + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + " \r")
	if resp := peer.Response(2); resp["error"] != nil {
		t.Fatalf("ping with spaces around it: %v", resp)
	}
}

func TestLogExcerptIsBoundedAndNeutral(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[31mred\x07\x00", `\x1b[31mred\a\x00`},
		{"\u202eevil", `\u202eevil`},
		{"\xff", `\xff`},
		{strings.Repeat("é", excerptBytes), strings.Repeat("é", excerptBytes/2) + fmt.Sprintf("… (%d more bytes)", excerptBytes)},
	}
	for _, tt := range tests {
		if got := logExcerpt([]byte(tt.in)); got != tt.want {
			t.Errorf("logExcerpt(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRefusalIsOneJSONRPCErrorLine(t *testing.T) {
	var out strings.Builder
	w := &responseWriter{out: &out, answers: newAnswerTracker()}
	w.refuse(-32700, "Parse error: x")
	var msg map[string]any
	if !strings.HasSuffix(out.String(), "}\n") || strings.Count(out.String(), "\n") != 1 || json.Unmarshal([]byte(out.String()), &msg) != nil {
		t.Fatalf("wrote %q, want one JSON line", out.String())
	}
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: x"}}` + "\n"; out.String() != want {
		t.Errorf("wrote %q, want %q", out.String(), want)
	}
}
