package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/fisk-mcp/fisk-mcp/browser"
	"github.com/fisk-mcp/fisk-mcp/browser/natspending"
	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/elicit/natsstore"
	"github.com/fisk-mcp/fisk-mcp/plan"
)

// warnApprovalWait warns when a wait in the browser outlives the request
// of most clients: the person would approve a call the client gave up on.
func warnApprovalWait(log *slog.Logger, a elicit.Options) {
	if a.Mode.UsesBrowser() && a.Timeout > elicit.ClientRequestTimeout {
		log.Warn("approvals in the browser wait longer than most clients wait for a tool call; a call approved late was already abandoned by its client. Keep --elicit-timeout under the client's request timeout",
			"elicit_timeout", a.Timeout.String(), "client_timeout", elicit.ClientRequestTimeout.String())
	}
}

// openApprovals builds what asks in the browser, when the plan's approval
// mode may: the /approvals page of a shared HTTP server, given an approver
// token or an OAuth client to sign people in as (its pending approvals in the replay store's NATS server when
// there is one, so every replica's page lists them), or else a page opened
// on this machine. page is the handler the HTTP server mounts; closeFn
// releases what was opened.
func openApprovals(ctx context.Context, sp *plan.Serving, log *slog.Logger) (asker elicit.Asker, page http.Handler, closeFn func(), err error) {
	closeFn = func() {}
	if !sp.Approval.Mode.UsesBrowser() {
		return nil, nil, closeFn, nil
	}
	log = log.With("approvals", "browser")
	if !sp.SharesApprovals() {
		open := browser.DefaultOpener()
		if len(sp.Opener) > 0 {
			open = browser.CommandOpener(sp.Opener)
		}
		l := browser.NewLocal(browser.LocalOptions{Open: open, Logger: log})
		return l, nil, func() { l.Close() }, nil
	}
	var store browser.Store = browser.NewMemoryStore()
	if sp.ReplayStore != natsstore.Memory {
		wait := sp.Approval.Timeout
		if wait <= 0 {
			wait = elicit.DefaultBrowserTimeout
		}
		ns, err := natspending.Open(ctx, natspending.Config{NATS: sp.Replay.Config, LongestWait: wait})
		if err != nil {
			return nil, nil, closeFn, fmt.Errorf("the store of pending approvals: %w", err)
		}
		store, closeFn = ns, ns.Close
	}
	shared, err := browser.NewShared(browser.SharedOptions{Token: []byte(sp.ApproverToken), SignIn: sp.ApprovalsSignIn, Store: store, Logger: log, Origins: sp.HTTP.AllowOrigins})
	if err != nil {
		closeFn()
		return nil, nil, func() {}, err
	}
	return shared, shared, closeFn, nil
}
