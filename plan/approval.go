package plan

import (
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/browser"
	"github.com/fisk-mcp/fisk-mcp/httpguard"
)

// resolveApproval checks how approvals reach a person: the opener and the
// approver token only apply when approvals may be asked in the browser,
// the token only to HTTP, and a server others reach must have it, since
// it has no desktop of the person's to open a page on.
func (p *Plan) resolveApproval() []error {
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
			{p.set.Named("approvals-client-id"), sp.approvalsClientID != ""},
			{p.set.Named("approvals-client-secret-file"), sp.approvalsSecretFile != ""},
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
	if h.OAuth.Issuer != "" || sp.approvalsClientID != "" || sp.approvalsSecretFile != "" {
		return append(errs, p.resolveApprovalsSignIn()...)
	}
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

// resolveApprovalsSignIn checks the /approvals page of a server with an
// OAuth issuer: it signs people in with the issuer, as the client
// --approvals-client-id, and takes no approver token, so that nobody
// holds a key that approves without saying who they are.
func (p *Plan) resolveApprovalsSignIn() []error {
	sp, h := p.Serving, &p.Serving.HTTP
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch {
	case h.OAuth.Issuer == "":
		fail("%s only applies with %s: the page signs people in with that authorization server; without one, give %s", p.set.Named("approvals-client-id"), p.set.Named("oauth-issuer"), p.set.Named("approver-token-file"))
	case sp.approverTokenFile != "":
		fail("%s and %s exclude each other: with an authorization server the approvals page signs people in with it (%s), so that nobody approves without saying who they are; remove %s", p.set.Named("oauth-issuer"), p.set.Named("approver-token-file"), p.set.Named("approvals-client-id"), p.set.Named("approver-token-file"))
	case sp.approvalsClientID == "" && sp.approvalsSecretFile != "":
		fail("%s needs %s: name the page's client at the authorization server", p.set.Named("approvals-client-secret-file"), p.set.Named("approvals-client-id"))
	case sp.approvalsClientID == "":
		if !loopbackAddr(h.Addr) {
			fail("%s %s on %s: a server others reach has no desktop of the person's to open the approval page on; give %s ID, the page's OAuth client at the authorization server, and people approve at /approvals of this server, signed in", p.set.Named("approval"), sp.Approval.Mode, h.Addr, p.set.Named("approvals-client-id"))
		}
	case sp.approvalOpener != "":
		fail("%s and %s exclude each other: a shared server's approvals are made at its /approvals page, not opened on its machine", p.set.Named("approval-opener"), p.set.Named("approvals-client-id"))
	default:
		si := &browser.SignIn{ClientID: sp.approvalsClientID, Key: sp.Approval.Key}
		if sp.approvalsSecretFile != "" {
			b, err := os.ReadFile(sp.approvalsSecretFile)
			si.ClientSecret = strings.TrimSpace(string(b))
			if err != nil {
				fail("%s: %v; point it at a readable file holding the page's client secret", p.set.Named("approvals-client-secret-file"), err)
			} else if si.ClientSecret == "" {
				fail("%s %s is empty; write the client secret the authorization server gave the page into it", p.set.Named("approvals-client-secret-file"), sp.approvalsSecretFile)
			}
		}
		sp.ApprovalsSignIn = si
	}
	return errs
}
