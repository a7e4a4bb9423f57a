package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/chromium"
)

// fourEyes is the four-eyes example of docs/teams.md: everyone calls,
// ops approves, and nobody approves their own call.
const fourEyes = `
@id("everyone-calls")
permit (principal, action in [Action::"list", Action::"call"], resource);

@id("ops-approves")
permit (principal in Group::"ops", action == Action::"approve", resource);

@id("not-your-own")
forbid (principal, action == Action::"approve", resource)
when { context.caller == principal };
`

// personToken signs who in at h through the authorization code flow with
// PKCE, as an MCP client does for its person, and returns the access
// token for resource. The browser is plain HTTP: the login app asks
// nothing.
func personToken(t *testing.T, h *hydra, who signer, resource string) string {
	t.Helper()
	const redirect = "http://127.0.0.1:1/callback" // never reached: the client stops there
	id := h.publicClient(t, redirect, "openid tools", resource)
	h.people.signInAs(who)
	jar, _ := cookiejar.New(nil)
	var back *url.URL
	// A fresh connection for every request: the transport's retry of a GET
	// on a reused connection that closed would present Hydra's one-time
	// verifiers twice.
	c := &http.Client{Jar: jar, Transport: &http.Transport{DisableKeepAlives: true}, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirect) {
			back = req.URL
			return http.ErrUseLastResponse
		}
		return nil
	}}
	verifier := strings.Repeat("v", 43)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "scope": {"openid tools"},
		"state": {"state-of-the-client"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"}, "audience": {resource}}
	resp, err := c.Get(h.issuer + "oauth2/auth?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if back == nil || back.Query().Get("code") == "" {
		var said url.Values
		if back != nil {
			said = back.Query()
		}
		t.Fatalf("signing %s in: no code (status %d, location %q, sent back with %v)", who.Subject, resp.StatusCode, resp.Header.Get("Location"), said)
	}
	resp, err = http.PostForm(h.issuer+"oauth2/token", url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")},
		"redirect_uri": {redirect}, "client_id": {id}, "code_verifier": {verifier}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.AccessToken == "" {
		t.Fatalf("redeeming %s's code: status %d, %v", who.Subject, resp.StatusCode, err)
	}
	return out.AccessToken
}

// signInOnPage signs who in on the approvals page at page in a Chromium of
// their own, through the authorization server, and returns its tab
// showing the list.
func signInOnPage(t *testing.T, h *hydra, page string, who signer) context.Context {
	t.Helper()
	tab := chromium.Start(t)
	h.people.signInAs(who)
	if status := chromium.Navigate(t, tab, page); status != http.StatusOK {
		t.Fatalf("the approvals page answered %d", status)
	}
	chromium.Click(t, tab, "#signin")
	chromium.WaitVisible(t, tab, "#who")
	if got := chromium.Text(t, tab, "#who"); !strings.Contains(got, who.Subject) {
		t.Fatalf("the page says %q, want %s signed in", got, who.Subject)
	}
	return tab
}

// Four eyes against a real authorization server: Alice's gated call waits
// on the shared page; signed in there herself, through Hydra in Chromium,
// she is not offered it and a forged decision is refused; Bob of ops
// approves it, and it runs once. The call's log line names both.
func TestApprovalPageSignsPeopleInAndLetsNobodyApproveTheirOwnCall(t *testing.T) {
	h := startHydra(t, "")
	port := freePort(t)
	base := "http://127.0.0.1:" + port
	resource, page := base+"/mcp", base+"/approvals"
	pageClient := h.publicClient(t, page+"/callback", "openid tools", resource)
	policyFile := filepath.Join(t.TempDir(), "four-eyes.cedar")
	if err := os.WriteFile(policyFile, []byte(fourEyes), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fiskMCP, serveArgs("--http", "127.0.0.1:"+port, "--oauth-issuer", h.issuer, "--oauth-scope", "tools",
		"--approval", "browser", "--approvals-client-id", pageClient, "--policy", policyFile, "--elicit-timeout", "3m", fixtureBin)...)
	cmd.Env = append(os.Environ(), "FISK_MCP_TOKEN=")
	srv := startHTTPCommand(t, cmd, "")

	alice := signer{Subject: "alice", Email: "alice@example.com", Groups: []string{"ops"}}
	bob := signer{Subject: "bob", Email: "bob@example.com", Groups: []string{"ops"}}
	asAlice := *srv
	asAlice.token = personToken(t, h, alice, resource)
	cs := asAlice.connect(t, client{protocol: "2025-11-25"})
	path := filepath.Join(t.TempDir(), "touched")
	results := callInBackground(t, cs, &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
	waiting := srv.log.waitRecord(t, "the call to wait on the approvals page", func(r map[string]any) bool {
		return r["msg"] == "approval waiting on the approvals page"
	})
	row := "#p-" + waiting["approval"].(string)

	aliceTab := signInOnPage(t, h, page, alice)
	chromium.WaitVisible(t, aliceTab, row)
	if got := chromium.Text(t, aliceTab, row+" .not-yours"); !strings.Contains(got, "your own call") {
		t.Errorf("Alice's own call says %q, want it not hers to decide", got)
	}
	if n := chromium.Eval[int](t, aliceTab, `document.querySelectorAll("button.approve").length`); n != 0 {
		t.Errorf("Alice is offered %d Approve buttons", n)
	}
	forged := chromium.Eval[int](t, aliceTab, `fetch("/approvals/decide", {method: "POST", body: new URLSearchParams({
		id: "`+waiting["approval"].(string)+`", decision: "approve", csrf: document.querySelector("input[name=csrf]").value})}).then(r => r.status)`)
	if forged != http.StatusForbidden {
		t.Errorf("Alice's own POST of an approval: status %d, want 403", forged)
	}
	if exists(path) {
		t.Fatal("the call ran on Alice's own approval")
	}

	bobTab := signInOnPage(t, h, page, bob)
	chromium.WaitVisible(t, bobTab, row)
	if status := chromium.ClickThrough(t, bobTab, row+" button.approve:enabled"); status != http.StatusOK {
		t.Fatalf("Bob's approval answered %d", status)
	}
	res := await(t, results, "the approved call to end")
	if res == nil || res.IsError || !exists(path) {
		t.Fatalf("approved by Bob, the call did not run: %v", text(res))
	}
	rec := srv.log.callRecord(t, "touch")
	if rec["decision"] != "approved" || rec["caller"] != "alice" || rec["approver"] != "bob" {
		t.Errorf("the call's line: %v; want it approved, caller alice, approver bob", rec)
	}
	decided := srv.log.waitRecord(t, "the page's line of Bob's decision", func(r map[string]any) bool {
		return r["msg"] == "approval decided on the approvals page"
	})
	if decided["approver"] != "bob" || decided["approver_name"] != "bob@example.com" || decided["caller"] != h.issuer+"#alice" {
		t.Errorf("the page's line: %v; want approver bob (bob@example.com), caller alice", decided)
	}

	// Bob's approval ran the call once: the same call again waits for a
	// decision of its own, and Bob's Deny runs nothing.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	again := callInBackground(t, cs, &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
	second := srv.log.waitRecord(t, "the same call to wait again", func(r map[string]any) bool {
		return r["msg"] == "approval waiting on the approvals page" && r["approval"] != waiting["approval"]
	})
	row = "#p-" + second["approval"].(string)
	chromium.Navigate(t, bobTab, page)
	chromium.WaitVisible(t, bobTab, row)
	chromium.ClickThrough(t, bobTab, row+" button.deny")
	if res := await(t, again, "the denied call to end"); res == nil || !res.IsError || exists(path) {
		t.Fatalf("the same call again ran without an approval of its own: %v", text(res))
	}
	ran := 0
	for _, r := range srv.log.finalCalls("touch") {
		if r["result"] == "ok" {
			ran++
		}
	}
	if ran != 1 {
		t.Errorf("touch ran %d times, want once", ran)
	}
	if log := srv.log.String(); strings.Contains(log, asAlice.token) {
		t.Error("Alice's token reached the log")
	}
}
