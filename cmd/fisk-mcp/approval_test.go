package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/plan"
)

func TestApprovalSettingsThatCannotWorkAreRefused(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	clientTok := writeFile(t, dir, "client.tok", "client-token-0123456789", 0o600)
	approverTok := writeFile(t, dir, "approver.tok", "approver-token-0123456789", 0o600)
	empty := writeFile(t, dir, "empty.secret", "\n", 0o600)
	const issuer = "https://auth.example.com/"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"opener without the browser", []string{"--approval-opener", "firefox"}, "--approval-opener only applies when approvals are asked in the browser"},
		{"approver token without the browser", []string{"--approver-token-file", approverTok}, "--approver-token-file only applies when approvals are asked in the browser"},
		{"approver token over stdio", []string{"--approval", "browser", "--approver-token-file", approverTok}, "only applies to streamable HTTP"},
		{"approver token is the clients' token", []string{"--approval", "browser", "--http", "127.0.0.1:0", "--token-file", clientTok, "--approver-token-file", clientTok}, "holds the clients' bearer token"},
		{"opener and approver token", []string{"--approval", "browser", "--http", "127.0.0.1:0", "--token-file", clientTok, "--approver-token-file", approverTok, "--approval-opener", "firefox"}, "exclude each other"},
		{"shared server without an approver token", []string{"--approval", "elicit-or-browser", "--http", "0.0.0.0:0", "--token-file", clientTok}, "give --approver-token-file FILE"},
		{"a page client without OAuth", []string{"--approval", "browser", "--http", "0.0.0.0:0", "--token-file", clientTok, "--approvals-client-id", "page"}, "--approvals-client-id only applies with --oauth-issuer"},
		{"a page client without the browser", []string{"--http", "127.0.0.1:0", "--oauth-issuer", issuer, "--approvals-client-id", "page"}, "--approvals-client-id only applies when approvals are asked in the browser"},
		{"an approver token beside OAuth", []string{"--approval", "browser", "--http", "127.0.0.1:0", "--oauth-issuer", issuer, "--approvals-client-id", "page", "--approver-token-file", approverTok}, "nobody approves without saying who they are"},
		{"a secret without a page client", []string{"--approval", "browser", "--http", "127.0.0.1:0", "--oauth-issuer", issuer, "--approvals-client-secret-file", approverTok}, "needs --approvals-client-id"},
		{"an empty page secret", []string{"--approval", "browser", "--http", "127.0.0.1:0", "--oauth-issuer", issuer, "--approvals-client-id", "page", "--approvals-client-secret-file", empty}, "is empty"},
		{"a shared OAuth server without a page client", []string{"--approval", "browser", "--http", "0.0.0.0:0", "--oauth-issuer", issuer, "--oauth-resource", "https://mcp.example.com/mcp"}, "give --approvals-client-id ID"},
		{"an unknown mode", []string{"--approval", "email"}, "email"},
		{"a zero wait", []string{"--elicit-timeout", "0s"}, "--elicit-timeout 0s: give a positive duration"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parse(t, append(append([]string{"serve"}, c.args...), app)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestApprovalSettingsThatWorkArePlanned(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	clientTok := writeFile(t, dir, "client.tok", "client-token-0123456789", 0o600)
	approverTok := writeFile(t, dir, "approver.tok", "approver-token-0123456789", 0o600)

	c, _, err := parse(t, "serve", "--approval", "browser", "--approval-opener", "firefox --new-window", "--elicit-timeout", "40s", app)
	if err != nil {
		t.Fatal(err)
	}
	sp := c.planned.Serving
	if sp.Approval.Mode != elicit.ModeBrowser || strings.Join(sp.Opener, "|") != "firefox|--new-window" || sp.Approval.Timeout != 40*time.Second {
		t.Errorf("plan = mode %s, opener %q, wait %s", sp.Approval.Mode, sp.Opener, sp.Approval.Timeout)
	}

	c, _, err = parse(t, "serve", "--approval", "browser", "--http", "0.0.0.0:0", "--token-file", clientTok, "--approver-token-file", approverTok, app)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.planned.Serving.ApproverToken; got != "approver-token-0123456789" {
		t.Errorf("approver token = %q", got)
	}

	secret := writeFile(t, dir, "page.secret", "page-secret\n", 0o600)
	c, _, err = parse(t, "serve", "--approval", "browser", "--http", "0.0.0.0:0", "--oauth-issuer", "https://auth.example.com/", "--oauth-resource", "https://mcp.example.com/mcp",
		"--approvals-client-id", "page", "--approvals-client-secret-file", secret, app)
	if err != nil {
		t.Fatal(err)
	}
	if si := c.planned.Serving.ApprovalsSignIn; si == nil || si.ClientID != "page" || si.ClientSecret != "page-secret" || c.planned.Serving.ApproverToken != "" {
		t.Errorf("the page's sign-in = %+v", si)
	}

	// A desktop HTTP server on loopback opens the page locally.
	if _, _, err := parse(t, "serve", "--approval", "browser", "--http", "127.0.0.1:0", "--insecure-no-auth", app); err != nil {
		t.Errorf("browser approval on a loopback HTTP server: %v", err)
	}
}

func TestAWaitInTheBrowserLongerThanClientsWaitIsWarnedAbout(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	warnApprovalWait(log, elicit.Options{Mode: elicit.ModeElicit, Timeout: 5 * time.Minute})
	warnApprovalWait(log, elicit.Options{Mode: elicit.ModeBrowser, Timeout: 50 * time.Second})
	if logs.Len() != 0 {
		t.Fatalf("warned about a wait that fits: %s", logs.String())
	}
	warnApprovalWait(log, elicit.Options{Mode: elicit.ModeElicitOrBrowser, Timeout: 2 * time.Minute})
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "elicit_timeout=2m0s") {
		t.Errorf("no warning about a 2m wait in the browser: %s", logs.String())
	}
}

func TestTheStartupLineSaysHowGatedCallsAreApproved(t *testing.T) {
	cases := []struct {
		sp        plan.Serving
		how, wait string
	}{
		{plan.Serving{}, "clients that cannot ask are refused", "2m0s"},
		{plan.Serving{Approval: elicit.Options{Mode: elicit.ModeBrowser}}, "a page opened in this machine's browser", "50s"},
		{plan.Serving{Approval: elicit.Options{Mode: elicit.ModeBrowser, Timeout: 30 * time.Second}, ApproverToken: "x"}, "/approvals", "30s"},
		{plan.Serving{Approval: elicit.Options{Mode: elicit.ModeElicitOrBrowser}}, "a decline through the client is final", "2m0s through the client, 50s in the browser"},
	}
	for _, c := range cases {
		how, wait := approvalHow(&c.sp)
		if !strings.Contains(how, c.how) || wait != c.wait {
			t.Errorf("%+v: how %q, wait %q; want %q and %q", c.sp.Approval, how, wait, c.how, c.wait)
		}
	}
}
