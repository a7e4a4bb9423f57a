package server

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
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
