package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeStdioAnswersTheLastRequestsWhenTheClientClosesItsInput closes
// the client's input while a command runs and right after a ping that
// lacks its newline: the command's group is killed, and both requests are
// answered on the output, which the client still reads, before ServeStdio
// returns. (The SDK alone stops writing once it reads the end.)
func TestServeStdioAnswersTheLastRequestsWhenTheClientClosesItsInput(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	served := background(func() error { return s.ServeStdio(context.Background(), toServer, fromServer) })
	t.Cleanup(func() {
		fromClient.Close()
		toClient.Close()
	})
	peer := testsupport.NewRawPeer(t, fromClient, toClient, guard)
	peer.Initialize(1, legacyVersion)

	pidFile, written := pidFIFO(t)
	peer.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spawn","arguments":{"context":"test","for":"1h","pid-file":%q}}}`, pidFile))
	pids := watchPids(t, wait(t, written, "spawn's pids"))
	if _, err := io.WriteString(fromClient, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); err != nil {
		t.Fatal(err)
	}
	fromClient.Close()

	seen := map[float64]bool{}
	for len(seen) < 2 {
		msg := peer.Next("the answers to the requests sent before the input closed")
		if id, ok := msg["id"].(float64); ok && msg["method"] == nil {
			seen[id] = true
		}
	}
	if !seen[2] || !seen[3] {
		t.Fatalf("answered %v, want requests 2 and 3", seen)
	}
	if err := wait(t, served, "ServeStdio to return"); err != nil {
		t.Errorf("ServeStdio returned %v after the client closed its input", err)
	}
	awaitExit(t, pids)
}

// TestServeStdioReturnsThoughTheClientNeverReadsItsOutput gives the server
// a real pipe for its output that nobody reads, fills it with responses,
// and ends the session both ways a stdio session ends: ServeStdio returns
// all the same, abandoning the writes the client holds up.
func TestServeStdioReturnsThoughTheClientNeverReadsItsOutput(t *testing.T) {
	for _, how := range []string{"shutdown", "input closed"} {
		t.Run(how, func(t *testing.T) {
			s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
			toServer, fromClient := io.Pipe()
			unread, out, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				fromClient.Close()
				out.Close()
				unread.Close()
			})
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			served := background(func() error { return s.ServeStdio(ctx, toServer, out) })

			// Each answer is about 64 KiB of output, a pipe's whole buffer:
			// the second already cannot be written.
			big := strings.Repeat("x", 60<<10)
			for _, line := range []string{
				`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + legacyVersion + `","capabilities":{},"clientInfo":{"name":"mute","version":"1"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			} {
				if _, err := io.WriteString(fromClient, line+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			for id := 1; id <= 4; id++ {
				line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"context":"test","subject":%q}}}`, id, big)
				if _, err := io.WriteString(fromClient, line+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			// The calls have all run once their lines are logged; their
			// answers are then written, or blocked on the full pipe.
			logs.WaitRecords(t, "the four calls to be logged", guard, func(recs []map[string]any) map[string]any {
				n := 0
				for _, r := range recs {
					if r["msg"] == "tool call" {
						n++
					}
				}
				if n == 4 {
					return recs[0]
				}
				return nil
			})
			if how == "shutdown" {
				cancel()
			} else {
				fromClient.Close()
			}
			wait(t, served, "ServeStdio to return with its output unread")
		})
	}
}

// TestServeStdioAnswersWhatAClientWroteBeforeClosingItsInput is a client
// that writes its requests and closes its input at once, as
// `printf ... | fisk-mcp serve` does: every request is answered with a
// result, the list in full, and none with the bare "context canceled"
// error (code 0) the SDK gives a request cancelled before it began.
func TestServeStdioAnswersWhatAClientWroteBeforeClosingItsInput(t *testing.T) {
	set := fixtureSet(t, exposure.Policy{})
	want := 0
	for _, tool := range set.Tools() {
		if tool.MCPExposable() {
			want++
		}
	}
	// Repeated: before the fix, whether a request was begun before the
	// end was read decided its fate, and a run could be lucky.
	for round := range 5 {
		s, _ := newServer(t, Config{}, set)
		var out strings.Builder
		in := strings.NewReader(strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + legacyVersion + `","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
		}, "\n"))
		if err := s.ServeStdio(context.Background(), in, &out); err != nil {
			t.Fatalf("round %d: ServeStdio: %v", round, err)
		}
		answers := map[float64]map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var msg map[string]any
			if err := json.Unmarshal([]byte(line), &msg); err != nil {
				t.Fatalf("round %d: an answer is not JSON: %.200s", round, line)
			}
			id, _ := msg["id"].(float64)
			answers[id] = msg
		}
		for id := 1.0; id <= 4; id++ {
			msg := answers[id]
			if msg == nil || msg["error"] != nil || msg["result"] == nil {
				t.Fatalf("round %d: request %v was answered with %.300v, want a result", round, id, msg)
			}
		}
		for _, id := range []float64{2, 4} {
			tools, _ := answers[id]["result"].(map[string]any)["tools"].([]any)
			if len(tools) != want {
				t.Fatalf("round %d: tools/list %v listed %d tools, want %d", round, id, len(tools), want)
			}
		}
	}
}

// TestCallsOfAClientThatClosedItsInputRunNothing: a call the SDK begins
// after the client closed its input (it was read before) is answered
// that nothing ran, and its command does not start; a call under way when
// the input ends has its context ended with that cause.
func TestCallsOfAClientThatClosedItsInputRunNothing(t *testing.T) {
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	ended := make(chan struct{})
	ctx := context.WithValue(context.Background(), inputEndKey{}, (<-chan struct{})(ended))
	pidFile := tempPath(t, "pid")
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Name:      "spawn",
		Arguments: json.RawMessage(fmt.Sprintf(`{"context":"test","for":"1h","pid-file":%q}`, pidFile)),
	}}

	// Under way: the handler sees its context end, with the cause.
	begun, cause := make(chan struct{}), make(chan error, 1)
	running := background(func() error {
		_, err := s.callMiddleware(func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
			close(begun)
			<-ctx.Done()
			cause <- context.Cause(ctx)
			return nil, ctx.Err()
		})(ctx, "tools/call", req)
		return err
	})
	wait(t, begun, "the call to begin")
	close(ended)
	if got := wait(t, cause, "the call's context to end"); !errors.Is(got, errInputEnded) {
		t.Errorf("the running call ended with %v, want %v", got, errInputEnded)
	}
	wait(t, running, "the running call to return")

	// Begun after the end: refused before the handler.
	res, err := s.callMiddleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		t.Error("the handler ran for a call begun after the client closed its input")
		return nil, nil
	})(ctx, "tools/call", req)
	if err != nil {
		t.Fatalf("the call begun after the end: %v", err)
	}
	got, _ := res.(*mcp.CallToolResult)
	if got == nil || !got.IsError || !strings.Contains(text(got), "nothing ran: the client closed its input") {
		t.Fatalf("the call begun after the end got %#v, want an isError result saying nothing ran", res)
	}
	if exists(t, pidFile) {
		t.Error("spawn ran")
	}
	recs := logs.records("tool call")
	if len(recs) == 0 || recs[len(recs)-1]["result"] != string(ResultCancelled) || recs[len(recs)-1]["kind"] != "application" {
		t.Errorf("the refused call's line is %v, want result %q and kind application", recs, ResultCancelled)
	}
}
