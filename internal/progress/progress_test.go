package progress

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// call calls a tool that reports with t until release is called (at the
// latest when the test ends), and returns the notifications its client
// receives and the call's error.
func call(tb testing.TB, t Ticker, token any) (notes <-chan *mcp.ProgressNotificationParams, done <-chan error, release func()) {
	ch := make(chan struct{})
	release = sync.OnceFunc(func() { close(ch) })
	srv := mcp.NewServer(&mcp.Implementation{Name: "progress-test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			stop := Report(ctx, req, t)
			<-ch
			stop()
			return &mcp.CallToolResult{}, nil
		})
	got := make(chan *mcp.ProgressNotificationParams, 100)
	cs := testsupport.Connect(tb, srv, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case got <- req.Params:
			default: // the test has read what it needs
			}
		},
	}), testsupport.LegacyProtocol)
	tb.Cleanup(release) // before the sessions close, which wait for the call
	errs := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}}
		if token != nil {
			p.SetProgressToken(token)
		}
		_, err := cs.CallTool(tb.Context(), p)
		errs <- err
	}()
	return got, errs, release
}

func TestReportNotifiesWhatNextSaysWithTheCallsToken(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ticker Ticker
		want   int
	}{
		// An hour apart, so whatever arrives was sent at once.
		{"the first at once with AtOnce", Ticker{Every: time.Hour, AtOnce: true}, 1},
		{"every interval", Ticker{Every: time.Millisecond}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			tc.ticker.Next = func() (float64, float64, string) { return float64(n.Add(1)), 10, "still going" }
			notes, done, release := call(t, tc.ticker, "tok-1")
			for i := range tc.want {
				var p *mcp.ProgressNotificationParams
				select {
				case p = <-notes:
				case <-time.After(10 * time.Second):
					t.Fatalf("notification %d did not come", i)
				}
				if p.ProgressToken != "tok-1" || p.Progress != float64(i+1) || p.Total != 10 || p.Message != "still going" {
					t.Errorf("notification %d = %+v, want the call's token, progress %d of 10 and Next's message", i, p, i+1)
				}
			}
			release()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestReportSendsNothingWithoutAProgressToken(t *testing.T) {
	var n atomic.Int64
	_, done, release := call(t, Ticker{Every: time.Millisecond, AtOnce: true, Next: func() (float64, float64, string) {
		n.Add(1)
		return 0, 0, ""
	}}, nil)
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n.Load() != 0 {
		t.Errorf("Next was asked %d times for a call without a progress token", n.Load())
	}
}
