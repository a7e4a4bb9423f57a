package browser_test

// These tests show the approval pages to a real headless Chromium and prove
// each rule by its side effect: the outcome Ask returns, and a counter that
// stands in for the command, which runs only on Approved. Chromium comes
// from Debian's chromium package (`make chromium`); without it the tests
// skip, and fail under CI=true.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fisk-mcp/fisk-mcp/browser"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/chromium"
)

var quiet = slog.New(slog.DiscardHandler)

// hostile is a Request whose every shown string tries to break out of the
// page: markup, script, quotes, shell syntax and non-ASCII.
func hostile() browser.Request {
	b := make([]byte, 8)
	rand.Read(b)
	return browser.Request{
		ID:          hex.EncodeToString(b),
		Server:      `fisk "demo" <i>srv</i>`,
		Tool:        `deploy</dd><script>window.pwned=1</script>`,
		CommandLine: `fisk-demo deploy --note '</pre><script>window.pwned=2</script>' "$(id)" <img src=x onerror="window.pwned=3"> && echo ünïcødé; rm -rf ~ #`,
		Trigger:     `ai:confirm' onmouseover='window.pwned=4`,
		Client:      `claude-desktop 0.9 <b>session</b> & "friends"`,
		Deadline:    time.Now().Add(time.Minute),
	}
}

// asking is one Ask running in the background.
type asking struct {
	t      *testing.T
	urls   chan string // the URL the opener was given
	done   chan result
	ran    atomic.Int32 // "the command ran": Ask said Approved
	cancel context.CancelFunc
}

type result struct {
	outcome browser.Outcome
	err     error
}

// opener makes the Open func of a Local; hand is where it reports the URL.
type opener func(hand chan<- string) func(ctx context.Context, url string) error

// openIn opens the page in tab as a person's opener would: it navigates
// there, and returns once the page is loaded. Only then does it hand the
// URL to the test, which may use the tab from then on.
func openIn(t *testing.T, tab context.Context) opener {
	return func(hand chan<- string) func(context.Context, string) error {
		return func(ctx context.Context, u string) error {
			nctx, cancel := chromium.Deadline(t, tab)
			defer cancel()
			defer context.AfterFunc(ctx, cancel)()
			if _, err := chromedp.Run(nctx, chromedp.NavigateResponse(u)); err != nil {
				return err
			}
			hand <- u
			return nil
		}
	}
}

// handOver only hands the URL to the test, as if someone read it before
// the person's browser got it.
func handOver(hand chan<- string) func(context.Context, string) error {
	return func(_ context.Context, u string) error {
		hand <- u
		return nil
	}
}

// askLocal starts Ask of r on a new Local that opens its page with open,
// and holds an early Approve for a millisecond only.
func askLocal(t *testing.T, r browser.Request, open opener) *asking {
	return askLocalHolding(t, r, open, time.Millisecond)
}

// askLocalHolding is askLocal with the Local's Hold.
func askLocalHolding(t *testing.T, r browser.Request, open opener, hold time.Duration) *asking {
	a := &asking{t: t, urls: make(chan string, 1), done: make(chan result, 1)}
	l := browser.NewLocal(browser.LocalOptions{Open: open(a.urls), Logger: quiet, Hold: hold})
	t.Cleanup(func() { l.Close() })
	a.run(func(ctx context.Context) (browser.Outcome, error) { return l.Ask(ctx, r) })
	return a
}

func (a *asking) run(ask func(context.Context) (browser.Outcome, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	a.t.Cleanup(cancel)
	go func() {
		o, err := ask(ctx)
		if err == nil && o == browser.Approved {
			a.ran.Add(1)
		}
		a.done <- result{o, err}
	}()
}

// url waits for the URL the Local gave its opener.
func (a *asking) url() string {
	a.t.Helper()
	ctx, cancel := chromium.Deadline(a.t, context.Background())
	defer cancel()
	select {
	case u := <-a.urls:
		return u
	case r := <-a.done:
		a.t.Fatalf("Ask ended (%q, %v) before opening its page", r.outcome, r.err)
	case <-ctx.Done():
		a.t.Fatal("the Local never opened its page")
	}
	return ""
}

// pending fails the test if Ask has ended.
func (a *asking) pending() {
	a.t.Helper()
	select {
	case r := <-a.done:
		a.t.Fatalf("Ask ended with %q (error %v), want it still pending", r.outcome, r.err)
	default:
	}
}

// want waits for Ask's outcome and checks it, and whether the command ran.
func (a *asking) want(o browser.Outcome) {
	a.t.Helper()
	ctx, cancel := chromium.Deadline(a.t, context.Background())
	defer cancel()
	var r result
	select {
	case r = <-a.done:
	case <-ctx.Done():
		a.t.Fatalf("Ask never returned; want %q", o)
	}
	if r.err != nil || r.outcome != o {
		a.t.Fatalf("Ask returned (%q, %v), want %q", r.outcome, r.err, o)
	}
	want := int32(0)
	if o == browser.Approved {
		want = 1
	}
	if ran := a.ran.Load(); ran != want {
		a.t.Fatalf("the command ran %d times after %q, want %d", ran, o, want)
	}
}

// serve starts a page server of another origin than the approval page.
func serve(t *testing.T, pages map[string]string) *httptest.Server {
	mux := http.NewServeMux()
	for path, body := range pages {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, body)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// decideURL is the decision endpoint of the page at pageURL.
func decideURL(t *testing.T, pageURL string) string {
	u, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	u.RawQuery = ""
	u.Path += "/decide"
	return u.String()
}

func TestChromiumApproveShowsTheRequestAsGivenAndRuns(t *testing.T) {
	tab := chromium.Start(t)
	r := hostile()
	a := askLocal(t, r, openIn(t, tab))
	a.url()
	for sel, want := range map[string]string{"#server": r.Server, "#tool": r.Tool, "#command": r.CommandLine, "#trigger": r.Trigger, "#client": r.Client} {
		if got := chromium.Text(t, tab, sel); got != want {
			t.Errorf("%s shows %q, want exactly %q", sel, got, want)
		}
	}
	if got := chromium.Text(t, tab, "#timeleft"); got == "" {
		t.Error("#timeleft is empty")
	}
	if got := chromium.Eval[string](t, tab, `String(window.pwned) + " " + document.querySelectorAll("#command *, #tool *, #server *, #client *, #trigger *").length`); got != "undefined 0" {
		t.Fatalf("the shown strings became markup or script: pwned and nested elements are %q", got)
	}
	a.pending()
	chromium.Click(t, tab, "#approve:enabled") // armed a moment after the load
	a.want(browser.Approved)
}

func TestChromiumDenyRefuses(t *testing.T) {
	tab := chromium.Start(t)
	a := askLocal(t, hostile(), openIn(t, tab))
	a.url()
	chromium.Click(t, tab, "#deny")
	a.want(browser.Denied)
}

func TestChromiumNobodyDecidingTimesOut(t *testing.T) {
	tab := chromium.Start(t)
	r := hostile()
	r.Deadline = time.Now().Add(2 * time.Second)
	a := askLocal(t, r, openIn(t, tab))
	a.url()
	chromium.WaitVisible(t, tab, "#approve")
	a.want(browser.TimedOut)
}

func TestChromiumForgedTicketIsRefusedAndTheRealOneStillWorks(t *testing.T) {
	tab := chromium.Start(t)
	a := askLocal(t, hostile(), handOver)
	real := a.url()
	u, err := url.Parse(real)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	ticket := q.Get("t")
	forged := []byte(ticket)
	forged[len(forged)/2] ^= 1 // one character off
	q.Set("t", string(forged))
	u.RawQuery = q.Encode()
	noTicket, _, _ := strings.Cut(real, "?")

	for _, bad := range []string{u.String(), noTicket} {
		if status := chromium.Navigate(t, tab, bad); status != http.StatusForbidden {
			t.Errorf("GET %s answered %d, want 403", bad, status)
		}
		if n := chromium.Eval[int](t, tab, `document.querySelectorAll("#approve, #deny").length`); n != 0 {
			t.Errorf("the page of %s has %d decision buttons", bad, n)
		}
		a.pending()
	}
	if status := chromium.Navigate(t, tab, real); status != http.StatusOK {
		t.Fatalf("the real URL answered %d after the forged ones", status)
	}
	chromium.Click(t, tab, "#approve:enabled")
	a.want(browser.Approved)
}

func TestChromiumReusedTicketCancelsAndTheFirstTabCannotApprove(t *testing.T) {
	first := chromium.Start(t)
	a := askLocal(t, hostile(), openIn(t, first))
	u := a.url()
	second, _ := chromium.NewTab(t, first)
	chromium.Navigate(t, second, u)
	// The second use was judged before its answer came back: the outcome
	// is final before the first tab tries anything.
	chromium.Click(t, first, "#approve")
	a.want(browser.Reused)
}

// Whoever reads the URL first (a served command, from the opener's argv)
// and approves at once is held; the person's browser opening the page
// meanwhile cancels the approval.
func TestChromiumApproveWithinTheHoldIsCancelledByTheSecondOpen(t *testing.T) {
	thief := chromium.Start(t)
	// The hold outlasts the test: the held Approve can only be cancelled.
	a := askLocalHolding(t, hostile(), handOver, time.Hour)
	u := a.url()
	chromium.Navigate(t, thief, u)
	sent := chromium.Sending(t, thief, http.MethodPost, decideURL(t, u))
	chromium.Click(t, thief, "#approve:enabled")
	sent()
	person, _ := chromium.NewTab(t, thief)
	chromium.Navigate(t, person, u)
	a.want(browser.Reused)
}

func TestChromiumCrossOriginPostsDecideNothing(t *testing.T) {
	tab := chromium.Start(t)
	a := askLocal(t, hostile(), openIn(t, tab))
	decide := decideURL(t, a.url())
	// The strongest attacker: it even knows the page's CSRF token. The
	// browser sends the cookie along (127.0.0.1 on another port is the same
	// site); only the origin tells the request apart.
	csrf := chromium.Eval[string](t, tab, `document.querySelector("input[name=csrf]").value`)
	other := serve(t, map[string]string{
		"/form": `<form id="f" method="post" action="` + decide + `">
<input type="hidden" name="csrf" value="` + csrf + `"><input type="hidden" name="decision" value="approve"></form>`,
		"/": `<p>another origin</p>`,
	})
	attacker, _ := chromium.NewTab(t, tab)

	chromium.Navigate(t, attacker, other.URL+"/form")
	// Submitted by the page's script, as an attacker's page would on load.
	if status := chromium.Submit(t, attacker, "#f"); status >= 200 && status < 300 {
		t.Errorf("the cross-origin form POST was answered %d", status)
	}
	a.pending()

	chromium.Navigate(t, attacker, other.URL+"/")
	// no-cors: the attacker cannot read the answer, but the server gets the
	// request; the promise settles once it has answered.
	got := chromium.Eval[string](t, attacker, `fetch(`+jsString(decide)+`, {method: "POST", mode: "no-cors", credentials: "include",
		body: new URLSearchParams({csrf: `+jsString(csrf)+`, decision: "approve"})}).then(() => "answered", e => "failed: " + e)`)
	if got != "answered" {
		t.Fatalf("the cross-origin fetch: %s", got)
	}
	a.pending()

	// Had either POST approved, this Deny would come too late.
	chromium.Click(t, tab, "#deny")
	a.want(browser.Denied)
}

func TestChromiumFramedPageDoesNotRender(t *testing.T) {
	tab := chromium.Start(t)
	a := askLocal(t, hostile(), handOver)
	u := a.url()
	// The control frame holds a look-alike page that allows framing: it
	// proves the check below can see into a frame of another origin.
	other := serve(t, map[string]string{
		"/control": `<pre id="command">look-alike</pre><button id="approve">Approve</button>`,
		"/frame":   `<iframe id="approval" src="` + u + `"></iframe><iframe id="control" src="/control"></iframe>`,
	})
	chromium.Navigate(t, tab, other.URL+"/frame") // its load waits for both frames
	if n := chromium.CountInFrame(t, tab, "#control", "#approve"); n != 1 {
		t.Fatalf("the control frame shows %d #approve, want 1", n)
	}
	if n := chromium.CountInFrame(t, tab, "#approval", "#approve, #deny, #command"); n != 0 {
		t.Fatalf("the framed approval page rendered: %d of its elements are in the frame", n)
	}
	a.pending()
	a.cancel()
	a.want(browser.Cancelled)
}

func TestChromiumClosingThePageRefuses(t *testing.T) {
	browserCtx := chromium.Start(t)
	tab, closeTab := chromium.NewTab(t, browserCtx)
	a := askLocal(t, hostile(), openIn(t, tab))
	a.url()
	chromium.WaitVisible(t, tab, "#approve")
	closeTab()
	a.want(browser.Closed)
}

// announcing tells the test when Ask has put its approval in the store.
type announcing struct {
	browser.Store
	put chan string
}

func (s announcing) Put(ctx context.Context, p browser.Pending) error {
	err := s.Store.Put(ctx, p)
	if err == nil {
		s.put <- p.ID
	}
	return err
}

// askShared starts Ask of r on a Shared page served by an httptest server,
// and returns once r is pending.
func askShared(t *testing.T, r browser.Request, token string) (*asking, string) {
	store := announcing{Store: browser.NewMemoryStore(), put: make(chan string, 1)}
	sh, err := browser.NewShared(browser.SharedOptions{Token: []byte(token), Store: store, Logger: quiet, Base: "/approvals"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sh.Handler())
	t.Cleanup(srv.Close)
	a := &asking{t: t, done: make(chan result, 1)}
	a.run(func(ctx context.Context) (browser.Outcome, error) { return sh.Ask(ctx, r) })
	ctx, cancel := chromium.Deadline(t, context.Background())
	defer cancel()
	select {
	case <-store.put:
	case <-ctx.Done():
		t.Fatal("the Shared Ask never put its approval in the store")
	}
	return a, srv.URL + "/approvals"
}

// login signs in on the page at page with token and returns the HTTP status
// of the page the sign-in leads to, once it has loaded.
func login(t *testing.T, tab context.Context, page, token string) int64 {
	chromium.Navigate(t, tab, page)
	chromium.SetValue(t, tab, "#token", token)
	return chromium.ClickThrough(t, tab, "#login")
}

const approverToken = "approver-0123456789abcdef"

func TestChromiumSharedPageApprovesWithTheToken(t *testing.T) {
	tab := chromium.Start(t)
	r := hostile()
	a, page := askShared(t, r, approverToken)
	if status := login(t, tab, page, approverToken); status != http.StatusOK {
		t.Fatalf("signing in with the approver token led to a page answered %d", status)
	}
	row := "#p-" + r.ID
	chromium.WaitVisible(t, tab, row)
	a.pending()
	chromium.Click(t, tab, row+" .approve:enabled")
	a.want(browser.Approved)
}

func TestChromiumSharedPageShowsNothingToAWrongToken(t *testing.T) {
	tab := chromium.Start(t)
	a, page := askShared(t, hostile(), approverToken)
	if status := login(t, tab, page, "not-the-approver-token-at-all"); status != http.StatusForbidden {
		t.Errorf("signing in with a wrong token was answered %d, want 403", status)
	}
	if n := chromium.Eval[int](t, tab, `document.querySelectorAll("[id^='p-'], .approve, .deny").length`); n != 0 {
		t.Fatalf("a wrong token sees %d approval rows or buttons", n)
	}
	chromium.WaitVisible(t, tab, "#token")
	chromium.Navigate(t, tab, page)
	if n := chromium.Eval[int](t, tab, `document.querySelectorAll("[id^='p-'], .approve, .deny").length`); n != 0 {
		t.Fatalf("after a wrong token, the page lists %d approval rows or buttons", n)
	}
	a.pending()
	a.cancel()
	a.want(browser.Cancelled)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s) // escapes <, >, & and the line separators too
	return string(b)
}

// A second approval while the first's page is open launches no opener:
// the page announces it, and the list (in a tab of the same browser)
// opens its page, where it is approved.
func TestChromiumALaterApprovalIsAnnouncedAndApprovedFromTheList(t *testing.T) {
	tab := chromium.Start(t)
	urls := make(chan string, 4)
	l := browser.NewLocal(browser.LocalOptions{Open: openIn(t, tab)(urls), Logger: quiet, Hold: time.Millisecond})
	t.Cleanup(func() { l.Close() })
	ask := func(r browser.Request) *asking {
		a := &asking{t: t, urls: urls, done: make(chan result, 1)}
		a.run(func(ctx context.Context) (browser.Outcome, error) { return l.Ask(ctx, r) })
		return a
	}
	first := ask(hostile())
	u, err := url.Parse(first.url())
	if err != nil {
		t.Fatal(err)
	}
	chromium.WaitTrue(t, tab, `document.querySelector("#others a").textContent.startsWith("0 ")`) // the stream is connected
	r := hostile()
	second := ask(r)
	chromium.WaitTrue(t, tab, `!document.getElementById("others").hidden && document.querySelector("#others a").textContent.startsWith("1 other approval is waiting")`)
	list, _ := chromium.NewTab(t, tab)
	if status := chromium.Navigate(t, list, u.Scheme+"://"+u.Host+"/"); status != http.StatusOK {
		t.Fatalf("the list answered %d", status)
	}
	if status := chromium.Submit(t, list, "#p-"+r.ID+" button.open"); status != http.StatusOK {
		t.Fatalf("opening the second approval's page answered %d", status)
	}
	chromium.Click(t, list, "#approve:enabled")
	second.want(browser.Approved)
	first.pending()
	select {
	case u := <-urls:
		t.Fatalf("the opener was launched again (%s) while a page was open", u)
	default:
	}
}
