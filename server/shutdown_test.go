package server

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioPeer is a client connected to ServeStdio over pipes.
type stdioPeer struct {
	cs     *mcp.ClientSession
	served <-chan error       // what ServeStdio returned
	cancel context.CancelFunc // ends ServeStdio's context
	// hangUp closes the client's ends of both pipes, as a client process
	// that exits does. (ClientSession.Close is polite: it waits for its
	// calls to be answered first.)
	hangUp func()
}

func stdioPair(t *testing.T, s *Server, opts *mcp.ClientOptions) stdioPeer {
	t.Helper()
	return stdioPairAt(t, s, "", opts)
}

// stdioPairAt is stdioPair at a given protocol version ("" for the
// client's default).
func stdioPairAt(t *testing.T, s *Server, version string, opts *mcp.ClientOptions) stdioPeer {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	served := background(func() error { return s.ServeStdio(ctx, toServer, fromServer) })
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-client", Version: "1"}, opts)
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: toClient, Writer: fromClient}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	hangUp := func() {
		fromClient.Close()
		toClient.Close()
	}
	return stdioPeer{cs: cs, served: served, cancel: cancel, hangUp: hangUp}
}

func TestServeStdioServesUntilTheClientLeaves(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	peer := stdioPair(t, s, nil)
	if res := call(t, peer.cs, "echo", map[string]any{"context": "test", "subject": "stdio"}); res.IsError {
		t.Fatalf("echo over stdio: %s", text(res))
	}
	peer.hangUp()
	wait(t, peer.served, "ServeStdio to return after the client left")
}

func TestServeStdioKillsRunningCommandsWhenTheClientLeaves(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	peer := stdioPair(t, s, nil)
	pidFile, written := pidFIFO(t)
	done := background(func() error {
		_, err := peer.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "spawn", Arguments: map[string]any{"context": "test", "for": "1h", "pid-file": pidFile}})
		return err
	})
	pids := watchPids(t, wait(t, written, "spawn's pids"))
	peer.hangUp()
	wait(t, peer.served, "ServeStdio to return")
	awaitExit(t, pids)
	if err := wait(t, done, "the abandoned call"); err == nil {
		t.Error("the call of a client that hung up returned no error")
	}
}

func TestServeStdioDrainsInFlightCallsOnShutdown(t *testing.T) {
	b := newBarrier()
	s, _ := newServer(t, Config{DrainTimeout: guard}, customSet(t, b.tool(t), echoTool(t)))
	peer := stdioPair(t, s, nil)
	result := background(func() *mcp.CallToolResult { return call(t, peer.cs, "hold", nil) })
	wait(t, b.entered, "the call to start")

	peer.cancel()
	// A call arriving after shutdown began is refused.
	wait(t, s.calls.drainStarted(), "the drain to begin")
	if res := call(t, peer.cs, "echo_json", nil); !res.IsError || !strings.Contains(text(res), "shutting down") {
		t.Errorf("a call during the drain: %q (isError %v), want a refusal", text(res), res.IsError)
	}
	close(b.release)
	if res := wait(t, result, "the drained call"); res.IsError {
		t.Errorf("the in-flight call was not allowed to finish: %s", text(res))
	}
	if err := wait(t, peer.served, "ServeStdio to return"); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

func TestHTTPShutdownCancelsCallsStillRunningAfterTheDrain(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	base, stop := serveHTTP(t, s, HTTPConfig{DrainTimeout: 50 * time.Millisecond})
	cs := connectHTTP(t, base, "", legacyVersion, nil)
	pidFile, written := pidFIFO(t)
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := background(func() outcome {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "spawn", Arguments: map[string]any{"context": "test", "for": "1h", "pid-file": pidFile}})
		return outcome{res, err}
	})
	pids := watchPids(t, wait(t, written, "spawn's pids"))

	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	awaitExit(t, pids)
	if o := wait(t, done, "the cancelled call"); o.err == nil && !strings.Contains(text(o.res), "shut down") {
		t.Errorf("the call cut short by shutdown returned %q, want an error saying the server shut down", text(o.res))
	}
}

func TestHTTPShutdownLetsInFlightCallsFinish(t *testing.T) {
	b := newBarrier()
	s, _ := newServer(t, Config{}, customSet(t, b.tool(t)))
	base, stop := serveHTTP(t, s, HTTPConfig{DrainTimeout: guard})
	cs := connectHTTP(t, base, "", legacyVersion, nil)
	result := background(func() *mcp.CallToolResult { return call(t, cs, "hold", nil) })
	wait(t, b.entered, "the call to start")

	stopped := background(stop)
	wait(t, s.calls.drainStarted(), "the drain to begin")
	close(b.release)
	if res := wait(t, result, "the drained call"); res.IsError {
		t.Errorf("the in-flight call was not allowed to finish: %s", text(res))
	}
	if err := wait(t, stopped, "Serve to return"); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestGatedCallDuringTheDrainIsRefusedWithoutAsking(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			b := newBarrier()
			s, _ := newServer(t, Config{DrainTimeout: guard}, fixtureSet(t, exposure.Policy{}, b.tool(t)))
			asked := make(chan string, 10)
			peer := stdioPairAt(t, s, version, answering("accept", true, asked))
			result := background(func() *mcp.CallToolResult { return call(t, peer.cs, "hold", nil) })
			wait(t, b.entered, "the held call to start")

			peer.cancel()
			wait(t, s.calls.drainStarted(), "the drain to begin")
			path := tempPath(t, "touched")
			res := call(t, peer.cs, "touch", map[string]any{"context": "test", "path": path})
			if !res.IsError || !strings.Contains(text(res), "shutting down") {
				t.Errorf("a gated call during the drain: %q (isError %v), want a shutdown refusal", text(res), res.IsError)
			}
			select {
			case q := <-asked:
				t.Errorf("a person was asked during the drain: %q", q)
			default:
			}
			if exists(t, path) {
				t.Error("the gated command ran during the drain")
			}
			close(b.release)
			wait(t, result, "the held call")
			wait(t, peer.served, "ServeStdio to return")
		})
	}
}
