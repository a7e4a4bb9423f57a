package e2e

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/natstest"
)

// pageOpener is an --approval-opener that hands the page's address to the
// test, as xdg-open hands it to a browser: the script writes it into a
// FIFO, which the test reads, so the test knows exactly when it was asked.
type pageOpener struct {
	script string
	urls   chan string
}

func newPageOpener(t *testing.T) *pageOpener {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "urls")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "opener")
	// It also writes to its stdout and stderr, as openers do: neither may
	// reach the protocol stream of a stdio server.
	body := "#!/bin/sh\necho 'opening in a new window'\necho 'Gtk-WARNING: cannot open display' >&2\nprintf '%s\\n' \"$1\" > '" + fifo + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	o := &pageOpener{script: script, urls: make(chan string, 4)}
	go func() {
		for {
			// Each open blocks until the opener writes: one address each.
			f, err := os.Open(fifo)
			if err != nil {
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			o.urls <- strings.TrimSpace(string(b))
		}
	}()
	t.Cleanup(func() {
		// Unblock the reader: a writer that opens and closes at once.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		os.Remove(fifo)
	})
	return o
}

// person is the person's browser, as plain HTTP: it keeps cookies, follows
// redirects and posts the page's own form, with the page's origin.
type person struct {
	t *testing.T
	c *http.Client
}

func newPerson(t *testing.T) *person {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &person{t: t, c: &http.Client{Jar: jar}}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// open loads the page at u and returns its text and the form's CSRF token.
func (p *person) open(u string) (page, csrf string) {
	p.t.Helper()
	resp, err := p.c.Get(u)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		p.t.Fatalf("GET %s: %s\n%s", redactTicket(u), resp.Status, b)
	}
	m := csrfField.FindSubmatch(b)
	if m == nil {
		p.t.Fatalf("the page has no CSRF field:\n%s", b)
	}
	return string(b), html.UnescapeString(string(m[1]))
}

// decide posts a decision on the approval at page (its URL without the
// ticket) with the page's origin; anything but 200 fails the test.
func (p *person) decide(page *url.URL, path, csrf string, form url.Values) string {
	p.t.Helper()
	form.Set("csrf", csrf)
	code, body := p.post(page.Scheme+"://"+page.Host+path, form)
	if code != http.StatusOK {
		p.t.Fatalf("POST %s: %d\n%s", path, code, body)
	}
	return body
}

// callInBackground makes the call on cs and hands over its result (nil
// after a protocol error, which fails the test) once the call has ended;
// a call asked in the browser waits for the person meanwhile.
func callInBackground(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) <-chan *mcp.CallToolResult {
	results := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(t.Context(), p)
		if err != nil {
			t.Error(err)
		}
		results <- res
	}()
	return results
}

func redactTicket(u string) string {
	if i := strings.Index(u, "?"); i >= 0 {
		return u[:i] + "?[ticket]"
	}
	return u
}

// TestBrowserApprovalOverStdioRunsOnlyWhatThePersonApproved: a client that
// cannot ask (as Claude Desktop) calls a gated tool of the built server with
// --approval browser; the page opened on "the desktop" decides, proven by
// the file touch creates, and its one-time ticket never reaches the client
// or the log.
func TestBrowserApprovalOverStdioRunsOnlyWhatThePersonApproved(t *testing.T) {
	for _, decision := range []string{"approve", "deny"} {
		t.Run(decision, func(t *testing.T) {
			o := newPageOpener(t)
			progress := make(chan string, 64)
			c := client{protocol: modernProtocol, progress: func(r *mcp.ProgressNotificationClientRequest) {
				select {
				case progress <- r.Params.Message:
				default:
				}
			}}
			s := startStdio(t, c, "--name", "desk", "--approval", "browser", "--approval-opener", o.script, fixtureBin)
			path := filepath.Join(t.TempDir(), "touched")
			params := &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)}
			params.SetProgressToken("approval-wait")
			results := callInBackground(t, s.cs, params)
			raw := await(t, o.urls, "the approval page to be opened")
			u, err := url.Parse(raw)
			if err != nil || u.Hostname() != "127.0.0.1" || u.Query().Get("t") == "" {
				t.Fatalf("opened %q, want a loopback page with a ticket", redactTicket(raw))
			}
			ticket := u.Query().Get("t")
			// The client is told the call waits in the browser, and nothing
			// it is told can approve.
			if msg := await(t, progress, "a progress notification"); !strings.Contains(msg, "browser") || strings.Contains(msg, ticket) || strings.Contains(msg, u.Host) {
				t.Errorf("progress while waiting says %q", msg)
			}
			p := newPerson(t)
			page, csrf := p.open(raw)
			for _, want := range []string{"desk", "touch", path, "ai:confirm", "e2e"} {
				if !strings.Contains(page, want) {
					t.Errorf("the page does not show %q", want)
				}
			}
			p.decide(u, u.Path+"/decide", csrf, url.Values{"decision": {decision}})
			res := await(t, results, "the call to end")
			if res == nil {
				t.Fatal("no result")
			}
			if want := decision == "approve"; exists(path) != want || res.IsError == want {
				t.Fatalf("%s: file exists %v, isError %v: %s", decision, exists(path), res.IsError, text(res))
			}
			rec := s.log.callRecord(t, "touch")
			wantDecision := map[string]string{"approve": "approved", "deny": "declined"}[decision]
			if rec["decision"] != wantDecision {
				t.Errorf("logged decision %v, want %s: %v", rec["decision"], wantDecision, rec)
			}
			if wantApprover := map[string]any{"approve": "local user", "deny": nil}[decision]; rec["approver"] != wantApprover {
				t.Errorf("logged approver %v, want %v", rec["approver"], wantApprover)
			}
			if strings.Contains(s.log.String(), ticket) || strings.Contains(text(res), ticket) {
				t.Error("the one-time ticket reached the log or the result")
			}
		})
	}
}

// TestElicitOrBrowserAsksAClientThatCanAndOpensNoPage: with
// --approval elicit-or-browser a client that elicits is asked, its decline
// is final and no page is opened.
func TestElicitOrBrowserAsksAClientThatCanAndOpensNoPage(t *testing.T) {
	dir := t.TempDir()
	opened := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "opener")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch '"+opened+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	asked := make(chan string, 1)
	s := startStdio(t, client{protocol: modernProtocol, elicit: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- r.Params.Message
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}, "--approval", "elicit-or-browser", "--approval-opener", script, fixtureBin)
	path := filepath.Join(dir, "touched")
	res := s.call(t, "touch", args("path", path))
	<-asked
	if !res.IsError || exists(path) || exists(opened) {
		t.Fatalf("isError %v, ran %v, page opened %v: %s", res.IsError, exists(path), exists(opened), text(res))
	}
}

// post posts form to u with u's origin, as the page's own form does, and
// returns the status and the body.
func (p *person) post(u string, form url.Values) (int, string) {
	p.t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		p.t.Fatal(err)
	}
	code, body, err := p.postFrom(u, pu.Scheme+"://"+pu.Host, form)
	if err != nil {
		p.t.Fatal(err)
	}
	return code, body
}

// postFrom posts form to u as a page of origin would; err is the
// transport's (a listener that has closed).
func (p *person) postFrom(u, origin string, form url.Values) (int, string, error) {
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	resp, err := p.c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// get loads u, with the bearer token when one is given.
func (p *person) get(u, bearerToken string) (int, string) {
	p.t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		p.t.Fatal(err)
	}
	if bearerToken != "" {
		req.Header.Set("Authorization", "Bearer "+bearerToken)
	}
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var pendingRow = regexp.MustCompile(`<section id="p-([A-Za-z0-9_=-]+)"`)

// TestSharedApprovalPageOfAnyReplicaDecidesAPendingCall: two replicas of a
// shared server keep pending approvals in one NATS server; a call waiting on
// one is listed and approved on the other's /approvals page by a person
// holding the approver token, and the clients' bearer token opens nothing.
func TestSharedApprovalPageOfAnyReplicaDecidesAPendingCall(t *testing.T) {
	n := natstest.Start(t)
	key := sharedKey(t)
	const clientToken, approverToken = "client-token-0123456789abcdef", "approver-token-0123456789abcdef"
	approverFile := filepath.Join(t.TempDir(), "approver")
	if err := os.WriteFile(approverFile, []byte(approverToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--state-key-file", key, "--replay-store", n.URL(), "--approval", "browser", "--approver-token-file", approverFile}
	a := startHTTP(t, clientToken, flags...)
	b := startHTTP(t, clientToken, flags...)
	pageB := strings.TrimSuffix(b.url, "/mcp") + "/approvals"

	cs := a.connect(t, client{protocol: "2025-11-25"})
	path := filepath.Join(t.TempDir(), "touched")
	results := callInBackground(t, cs, &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})

	// The clients' token neither lists nor logs in.
	intruder := newPerson(t)
	if _, body := intruder.get(pageB, clientToken); pendingRow.MatchString(body) || !strings.Contains(body, `id="token"`) {
		t.Errorf("the bearer token opened the approvals page:\n%s", body)
	}
	if code, _ := intruder.post(pageB+"/login", url.Values{"token": {clientToken}}); code != http.StatusForbidden {
		t.Errorf("logging in with the clients' token: status %d, want 403", code)
	}

	p := newPerson(t)
	if code, body := p.post(pageB+"/login", url.Values{"token": {approverToken}}); code != http.StatusOK {
		t.Fatalf("logging in: %d\n%s", code, body)
	}
	var id, page string
	waitFor(t, "the pending call to be listed on the other replica", func() bool {
		_, page = p.get(pageB, "")
		m := pendingRow.FindStringSubmatch(page)
		if m != nil {
			id = m[1]
		}
		return m != nil
	})
	if !strings.Contains(page, path) || exists(path) {
		t.Fatalf("the listed approval does not show the command, or it ran before approval:\n%s", page)
	}
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field on the page:\n%s", page)
	}
	if code, body := p.post(pageB+"/decide", url.Values{"id": {id}, "decision": {"approve"}, "csrf": {html.UnescapeString(m[1])}}); code != http.StatusOK {
		t.Fatalf("approving: %d\n%s", code, body)
	}
	res := await(t, results, "the approved call to end")
	if res == nil || res.IsError || !exists(path) {
		t.Fatalf("approved on replica b, the call on a did not run: %s", text(res))
	}
	if rec := a.log.callRecord(t, "touch"); rec["decision"] != "approved" || rec["approver"] != "approver token" {
		t.Errorf("logged decision %v by %v, want approved by the approver token", rec["decision"], rec["approver"])
	}
	for _, r := range []*httpServer{a, b} {
		if strings.Contains(r.log.String(), approverToken) {
			t.Error("the approver token reached a replica's log")
		}
	}
}

// TestBrowserApprovalOfTheBuiltServerRefusesWhatIsNotThePersonsClick: the
// page's address alone, a decision from another origin, or one without the
// page's cookie approve nothing; a second use of the address cancels the
// approval. Each is proven by the file touch would create.
func TestBrowserApprovalOfTheBuiltServerRefusesWhatIsNotThePersonsClick(t *testing.T) {
	o := newPageOpener(t)
	s := startStdio(t, client{protocol: modernProtocol}, "--approval", "browser", "--approval-opener", o.script, fixtureBin)
	path := filepath.Join(t.TempDir(), "touched")
	results := callInBackground(t, s.cs, &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
	raw := await(t, o.urls, "the approval page to be opened")
	u, _ := url.Parse(raw)
	decide := u.Scheme + "://" + u.Host + u.Path + "/decide"

	p := newPerson(t)
	_, csrf := p.open(raw)

	// A page of another origin posting the person's form, token and all:
	// the browser would send its own origin.
	if code, _, err := p.postFrom(decide, "http://127.0.0.1:1", url.Values{"csrf": {csrf}, "decision": {"approve"}}); err != nil || code == http.StatusOK {
		t.Errorf("a cross-origin decision was accepted (status %d, %v)", code, err)
	}
	// Someone without the cookie, who has the CSRF token somehow.
	if code, _ := newPerson(t).post(decide, url.Values{"csrf": {csrf}, "decision": {"approve"}}); code == http.StatusOK {
		t.Error("a decision without the page's cookie was accepted")
	}
	if exists(path) {
		t.Fatal("the command ran without the person's click")
	}
	// A second use of the address cancels the approval.
	if resp, err := newPerson(t).c.Get(raw); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("a second use of the address opened the page")
		}
	}
	res := await(t, results, "the call to end")
	if res == nil || !res.IsError || !strings.Contains(text(res), "opened twice") || exists(path) {
		t.Fatalf("after a reused address: isError %v, ran %v: %s", res != nil && res.IsError, exists(path), text(res))
	}
	// The person's own click comes too late: the approval has its one
	// decision, and with nothing pending the listener is gone.
	if code, body, err := p.postFrom(decide, u.Scheme+"://"+u.Host, url.Values{"csrf": {csrf}, "decision": {"approve"}}); err == nil && code == http.StatusOK && !strings.Contains(body, "cancel") {
		t.Errorf("a decision after the cancellation reads as taken: %s", body)
	}
	if exists(path) {
		t.Fatal("the command ran after the approval was cancelled")
	}
}

// TestBrowserApprovalNobodyDecidesIsRefusedWhenTheWaitEnds: the page is
// opened and left alone; when --elicit-timeout passes the call is refused
// with the timeout's text, and the command does not run.
func TestBrowserApprovalNobodyDecidesIsRefusedWhenTheWaitEnds(t *testing.T) {
	o := newPageOpener(t)
	s := startStdio(t, client{protocol: modernProtocol}, "--approval", "browser", "--elicit-timeout", "1s", "--approval-opener", o.script, fixtureBin)
	path := filepath.Join(t.TempDir(), "touched")
	results := callInBackground(t, s.cs, &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
	newPerson(t).open(await(t, o.urls, "the approval page to be opened")) // seen, not decided
	res := await(t, results, "the wait to end")
	if res == nil || !res.IsError || !strings.Contains(text(res), "did not answer the approval request within 1s") || exists(path) {
		t.Fatalf("isError %v, ran %v: %s", res != nil && res.IsError, exists(path), text(res))
	}
	if rec := s.log.callRecord(t, "touch"); rec["decision"] != "timeout" {
		t.Errorf("logged decision %v, want timeout", rec["decision"])
	}
}

// TestBrowserApprovalPageShowsAHostileClientAndArgumentsAsInertText: the
// client's name and version from its initialize and the call's arguments
// reach the page of the built server as text: no markup, no control or
// bidirectional character, and the client's own label bounded.
func TestBrowserApprovalPageShowsAHostileClientAndArgumentsAsInertText(t *testing.T) {
	o := newPageOpener(t)
	cmd := exec.Command(fiskMCP, serveArgs("--approval", "browser", "--approval-opener", o.script, fixtureBin)...)
	logs := newLogBuffer()
	cmd.Stderr = logs
	name := `<script>alert(1)</script>"'` + "\u202e\x1b[2J" + strings.Repeat("N", 5000)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "\x1b[31m<b>1</b>"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: modernProtocol})
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, logs.String())
	}
	t.Cleanup(func() { cs.Close() })
	path := filepath.Join(t.TempDir(), `a'b"<script>x</script>`+"\u202eexe.txt")
	results := callInBackground(t, cs, &mcp.CallToolParams{Name: "touch", Arguments: args("path", path)})
	raw := await(t, o.urls, "the approval page to be opened")
	p := newPerson(t)
	page, csrf := p.open(raw)
	for _, bad := range []string{"<script>alert", "<script>x", "<b>", "\u202e", "\x1b", strings.Repeat("N", 1000)} {
		if strings.Contains(page, bad) {
			t.Errorf("the page shows %.20q as is", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\u{202e}`, `\x1b[2J`, "&lt;script&gt;x&lt;/script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	u, _ := url.Parse(raw)
	p.decide(u, u.Path+"/decide", csrf, url.Values{"decision": {"deny"}})
	if res := await(t, results, "the call to end"); res == nil || !res.IsError || exists(path) {
		t.Fatalf("denied, the call ran or did not end: %v", res)
	}
}
