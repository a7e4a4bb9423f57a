// Package progress tells a client that a tool call is still under way: it
// sends notifications/progress at an interval while something runs, when
// the client asked for them by sending a progress token. The server uses
// it while a command runs, the approval gate while a call waits for a
// person in the browser.
//
// It deliberately decides nothing about the call: the call's context
// ends it, and a notification that cannot be sent ends nothing but the
// notifications.
package progress

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Ticker says when to notify and what.
type Ticker struct {
	// Every is the interval between notifications; it must be positive.
	Every time.Duration
	// AtOnce sends the first notification when Report starts rather than
	// one interval later.
	AtOnce bool
	// Next says what a notification reports: how far the call is, of how
	// much (0 when unknown), and a message for the person.
	Next func() (progress, total float64, message string)
	// Failed, when set, is told of a notification that could not be sent,
	// and the notifications go on. When nil, the first failure ends them:
	// the client is gone.
	Failed func(error)
}

// Report sends the notifications of t for req until stop is called or ctx
// ends; nothing when req carries no progress token. stop waits for the
// reporter, so no notification follows the call's result.
func Report(ctx context.Context, req *mcp.CallToolRequest, t Ticker) (stop func()) {
	if req.Params == nil || req.Session == nil {
		return func() {}
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		ticker := time.NewTicker(t.Every)
		defer ticker.Stop()
		for due := t.AtOnce; ; due = true {
			if due {
				p, total, msg := t.Next()
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: p, Total: total, Message: msg,
				})
				if err != nil {
					if t.Failed == nil {
						return
					}
					t.Failed(err)
				}
			}
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
