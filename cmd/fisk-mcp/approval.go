package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/browser"
	"github.com/fisk-mcp/fisk-mcp/browser/natspending"
	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/elicit/natsstore"
	"github.com/fisk-mcp/fisk-mcp/httpguard"
)

// resolveApproval checks how approvals reach a person: the opener and the
// approver token only apply when approvals may be asked in the browser,
// the token only to HTTP, and a server others reach must have it, since
// it has no desktop of the person's to open a page on.
func (p *plan) resolveApproval() []error {
	sp := p.Serving
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	mode := sp.Approval.Mode
	if !mode.UsesBrowser() {
		for _, o := range []struct {
			name string
			set  bool
		}{
			{p.set.Named("approval-opener"), sp.approvalOpener != ""},
			{p.set.Named("approver-token-file"), sp.approverTokenFile != ""},
		} {
			if o.set {
				fail("%s only applies when approvals are asked in the browser: add --approval browser or elicit-or-browser, or remove it", o.name)
			}
		}
		return errs
	}
	if sp.approvalOpener != "" {
		sp.Opener = strings.Fields(sp.approvalOpener)
		if len(sp.Opener) == 0 {
			fail("%s is empty: name a command such as firefox, or remove it to use the system's opener", p.set.Named("approval-opener"))
		}
	}
	h := &sp.HTTP
	if sp.approverTokenFile != "" {
		if h.Addr == "" {
			fail("%s only applies to streamable HTTP (the page lives at /approvals of the server): add --http ADDR, or remove it and approvals open on this machine's desktop", p.set.Named("approver-token-file"))
			return errs
		}
		if sp.approvalOpener != "" {
			fail("%s and %s exclude each other: a shared server's approvals are made at its /approvals page, not opened on its machine", p.set.Named("approval-opener"), p.set.Named("approver-token-file"))
		}
		tok, err := httpguard.ReadTokenFile(p.set.Named("approver-token-file"), sp.approverTokenFile)
		if err != nil {
			errs = append(errs, err)
		} else if h.Token != "" && tok == h.Token {
			fail("%s holds the clients' bearer token: the approver needs a token of their own, so that a client cannot approve its own calls (openssl rand -hex 32 > %s)", p.set.Named("approver-token-file"), sp.approverTokenFile)
		}
		sp.ApproverToken = tok
		return errs
	}
	if h.Addr != "" && !loopbackAddr(h.Addr) {
		fail("%s %s on %s: a server others reach has no desktop of the person's to open the approval page on; give --approver-token-file FILE, and the approver decides at /approvals of this server", p.set.Named("approval"), mode, h.Addr)
	}
	return errs
}

// loopbackAddr reports whether an --http address binds loopback only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

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
// token (its pending approvals in the replay store's NATS server when
// there is one, so every replica's page lists them), or else a page opened
// on this machine. page is the handler the HTTP server mounts; closeFn
// releases what was opened.
func openApprovals(ctx context.Context, sp *servingPlan, log *slog.Logger) (asker elicit.Asker, page http.Handler, closeFn func(), err error) {
	closeFn = func() {}
	if !sp.Approval.Mode.UsesBrowser() {
		return nil, nil, closeFn, nil
	}
	log = log.With("approvals", "browser")
	if sp.ApproverToken == "" {
		open := browser.DefaultOpener()
		if len(sp.Opener) > 0 {
			open = browser.CommandOpener(sp.Opener)
		}
		l := browser.NewLocal(browser.LocalOptions{Open: open, Logger: log})
		return l, nil, func() { l.Close() }, nil
	}
	var store browser.Store = browser.NewMemoryStore()
	if sp.replayStore != natsstore.Memory {
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
	shared, err := browser.NewShared(browser.SharedOptions{Token: []byte(sp.ApproverToken), Store: store, Logger: log, Origins: sp.HTTP.AllowOrigins})
	if err != nil {
		closeFn()
		return nil, nil, func() {}, err
	}
	return shared, shared.Handler(), closeFn, nil
}
