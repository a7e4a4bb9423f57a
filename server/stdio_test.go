package server

import (
	"context"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// heldCallLog is a slog handler that holds the "tool call" record of one
// tool until its gate opens. The server logs a call after the call has
// left the drain's count and before its handler returns, so holding the
// record keeps a finished call's response unwritten for as long as the
// test wants: here, until the drain has ended, the moment a server that
// closed its session right after the drain would lose the response.
type heldCallLog struct {
	slog.Handler
	tool string
	gate <-chan struct{}
}

func (h *heldCallLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "tool call" && recordTool(r) == h.tool {
		select {
		case <-h.gate:
		case <-ctx.Done():
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h *heldCallLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &heldCallLog{Handler: h.Handler.WithAttrs(attrs), tool: h.tool, gate: h.gate}
}

func (h *heldCallLog) WithGroup(name string) slog.Handler {
	return &heldCallLog{Handler: h.Handler.WithGroup(name), tool: h.tool, gate: h.gate}
}

func recordTool(r slog.Record) string {
	var tool string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "tool" {
			tool = a.Value.String()
			return false
		}
		return true
	})
	return tool
}

// drainHeldServer returns a server whose log holds every "hold" call's
// record until the drain has ended; its JSON logs go to the returned
// buffer.
func drainHeldServer(t *testing.T, cfg Config, b *barrier) (*Server, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	gate := make(chan struct{})
	cfg.Logger = slog.New(&heldCallLog{Handler: slog.NewJSONHandler(logs, nil), tool: "hold", gate: gate})
	s, _ := newServer(t, cfg, customSet(t, b.tool(t)))
	go func() {
		select {
		case <-s.calls.drainEnded():
		case <-t.Context().Done():
		}
		close(gate)
	}()
	return s, logs
}

type callOutcome struct {
	res *mcp.CallToolResult
	err error
}

// startHolds starts n calls of the barrier tool and waits until all run.
func startHolds(t *testing.T, cs *mcp.ClientSession, b *barrier, n int) []<-chan callOutcome {
	t.Helper()
	var outcomes []<-chan callOutcome
	for range n {
		outcomes = append(outcomes, background(func() callOutcome {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "hold"})
			return callOutcome{res, err}
		}))
	}
	for range n {
		wait(t, b.entered, "a call to start")
	}
	return outcomes
}

// unansweredWarnings are the log records of a shutdown that gave up
// waiting for responses.
func unansweredWarnings(logs *logBuffer) []map[string]any {
	return logs.records("closing the session with requests still unanswered")
}

func TestServeStdioWritesEveryDrainedResponseBeforeClosingTheSession(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			b := newBarrier()
			s, logs := drainHeldServer(t, Config{DrainTimeout: guard}, b)
			peer := stdioPairAt(t, s, version, nil)
			outcomes := startHolds(t, peer.cs, b, 3)

			peer.cancel()
			wait(t, s.calls.drainStarted(), "the drain to begin")
			close(b.release)
			for i, outcome := range outcomes {
				o := wait(t, outcome, "a drained call")
				if o.err != nil {
					t.Fatalf("drained call %d lost its response: %v", i, o.err)
				}
				if o.res.IsError || text(o.res) != `{"released":true}` {
					t.Errorf("drained call %d: %q (isError %v), want its own result", i, text(o.res), o.res.IsError)
				}
			}
			if err := wait(t, peer.served, "ServeStdio to return"); err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
			if w := unansweredWarnings(logs); len(w) > 0 {
				t.Errorf("shutdown gave up on responses: %v", w)
			}
		})
	}
}

func TestServeStdioWritesTheResponsesOfCallsCancelledAtTheDrainTimeout(t *testing.T) {
	b := newBarrier()
	// The shortest drain there is: the calls are cancelled, not finished.
	s, logs := drainHeldServer(t, Config{DrainTimeout: 1}, b)
	peer := stdioPair(t, s, nil)
	outcomes := startHolds(t, peer.cs, b, 2)

	peer.cancel()
	for i, outcome := range outcomes {
		o := wait(t, outcome, "a cancelled call")
		if o.err != nil {
			t.Fatalf("cancelled call %d lost its response: %v", i, o.err)
		}
		if !o.res.IsError {
			t.Errorf("cancelled call %d: %q, want an error result", i, text(o.res))
		}
	}
	if err := wait(t, peer.served, "ServeStdio to return"); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
	if len(logs.records("cancelled calls still running after the drain timeout")) != 1 {
		t.Errorf("the drain did not report cancelling the calls:\n%s", logs)
	}
}

func TestServeStdioShutdownDoesNotWaitForAListChangedStream(t *testing.T) {
	s, logs := newServer(t, Config{}, customSet(t, echoTool(t)))
	// A client on 2026-07-28 with a list-changed handler keeps a
	// subscriptions/listen request open for the whole session.
	peer := stdioPairAt(t, s, modernVersion, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {},
	})
	// The server reads requests in order: once the ping is answered, it has
	// read the listen request.
	if err := peer.cs.Ping(t.Context(), nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	peer.cancel()
	if err := wait(t, peer.served, "ServeStdio to return"); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
	if w := unansweredWarnings(logs); len(w) > 0 {
		t.Errorf("shutdown waited for the listen stream to be answered: %v", w)
	}
}
