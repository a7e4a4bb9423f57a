package browser

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/httpguard"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

const approverToken = "approver-token-0123456789abcdef"

type sharedRig struct {
	s    *Shared
	srv  *httptest.Server
	logs *testsupport.LogBuffer
}

func newSharedRig(t *testing.T, store Store) *sharedRig {
	t.Helper()
	logs := &testsupport.LogBuffer{}
	s, err := NewShared(SharedOptions{Token: []byte(approverToken), Store: store, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &sharedRig{s: s, srv: srv, logs: logs}
}

func (rig *sharedRig) url() string { return rig.srv.URL + "/approvals" }

// signIn signs c in and returns the list page.
func (rig *sharedRig) signIn(t *testing.T, c *http.Client) page {
	t.Helper()
	p := post(t, c, rig.url()+"/login", rig.srv.URL, url.Values{"token": {approverToken}}, nil)
	if p.status != http.StatusOK || !strings.Contains(p.body, "<h1>Pending approvals</h1>") {
		t.Fatalf("signing in: %d\n%s", p.status, p.body)
	}
	return p
}

func sharedRequest(id string) Request {
	return Request{ID: id, Server: "nats-ops", Tool: "stream_rm", CommandLine: "nats stream rm ORDERS", Trigger: "ai:confirm", Client: "cursor 1.0", Deadline: time.Now().Add(time.Hour)}
}

// notifyStore tells the test of every Put, so it knows when an Ask is
// waiting.
type notifyStore struct {
	*MemoryStore
	put chan string
}

func newNotifyStore() *notifyStore {
	return &notifyStore{MemoryStore: NewMemoryStore(), put: make(chan string, 8)}
}

func (n *notifyStore) Put(ctx context.Context, p Pending) error {
	err := n.MemoryStore.Put(ctx, p)
	n.put <- p.ID
	return err
}

// askShared starts s.Ask and waits until the approval is in the store.
func askShared(t *testing.T, ctx context.Context, s *Shared, store *notifyStore, r Request) <-chan askResult {
	t.Helper()
	out := make(chan askResult, 1)
	go func() {
		o, err := s.Ask(ctx, r)
		out <- askResult{o, err}
	}()
	if id := <-store.put; id != r.ID {
		t.Fatalf("put %q, want %q", id, r.ID)
	}
	return out
}

func TestNewSharedRefusesAShortTokenOrNoStore(t *testing.T) {
	if _, err := NewShared(SharedOptions{Token: []byte("short"), Store: NewMemoryStore()}); err == nil || !strings.Contains(err.Error(), "openssl rand") {
		t.Errorf("short token: %v", err)
	}
	if _, err := NewShared(SharedOptions{Token: []byte(approverToken)}); err == nil {
		t.Error("no store accepted")
	}
}

func TestSharedAsksForTheApproverTokenNotTheBearerToken(t *testing.T) {
	rig := newSharedRig(t, NewMemoryStore())
	req, _ := http.NewRequest(http.MethodGet, rig.url(), nil)
	req.Header.Set("Authorization", "Bearer "+approverToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	p := readPage(t, resp)
	for _, want := range []string{`id="token"`, `id="login"`, `action="/approvals/login"`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("login form lacks %s:\n%s", want, p.body)
		}
	}
	checkHeaders(t, "login", p.header)
}

func TestSharedWrongTokenIsForbiddenAndLogged(t *testing.T) {
	rig := newSharedRig(t, NewMemoryStore())
	c := browserClient(t)
	p := post(t, c, rig.url()+"/login", rig.srv.URL, url.Values{"token": {"guess-guess-guess-guess"}}, nil)
	if p.status != http.StatusForbidden || !strings.Contains(p.body, `id="token"`) {
		t.Fatalf("wrong token: %d\n%s", p.status, p.body)
	}
	if logs := rig.logs.String(); !strings.Contains(logs, "level=WARN") || strings.Contains(logs, "guess-guess") {
		t.Errorf("logs:\n%s", logs)
	}
	if l := get(t, c, rig.url()); !strings.Contains(l.body, `id="login"`) {
		t.Errorf("signed in after a wrong token:\n%s", l.body)
	}
	if p := post(t, c, rig.url()+"/login", "http://evil.example", url.Values{"token": {approverToken}}, nil); p.status != http.StatusForbidden {
		t.Errorf("sign-in from another origin: %d", p.status)
	}
}

// Wrong approver tokens are bounded per address: past the allowance the
// sign-in form says when to try again (429, Retry-After), the right token
// included, and the log says so once.
func TestSharedBoundsWrongTokensPerAddress(t *testing.T) {
	rig := newSharedRig(t, NewMemoryStore())
	c := browserClient(t)
	for i := range httpguard.DefaultBurst {
		if p := post(t, c, rig.url()+"/login", rig.srv.URL, url.Values{"token": {"guess-guess-guess-guess"}}, nil); p.status != http.StatusForbidden {
			t.Fatalf("wrong token %d: %d", i+1, p.status)
		}
	}
	for _, token := range []string{"one-guess-too-many", approverToken} {
		p := post(t, c, rig.url()+"/login", rig.srv.URL, url.Values{"token": {token}}, nil)
		if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") == "" || !strings.Contains(p.body, "try again in") || !strings.Contains(p.body, `id="token"`) {
			t.Errorf("past the allowance, token %q: %d, Retry-After %q\n%s", token, p.status, p.header.Get("Retry-After"), p.body)
		}
	}
	if l := get(t, c, rig.url()); !strings.Contains(l.body, `id="login"`) {
		t.Errorf("signed in while refused:\n%s", l.body)
	}
	if n := strings.Count(rig.logs.String(), "refusing approver tokens from an address"); n != 1 {
		t.Errorf("the allowance running out was logged %d times, want once:\n%s", n, rig.logs)
	}
}

func TestSharedSessionCookie(t *testing.T) {
	rig := newSharedRig(t, NewMemoryStore())
	c := browserClient(t)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	p := post(t, c, rig.url()+"/login", rig.srv.URL, url.Values{"token": {approverToken}}, nil)
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/approvals" {
		t.Fatalf("login: %d to %q", p.status, p.header.Get("Location"))
	}
	ck := p.header.Get("Set-Cookie")
	for _, want := range []string{sessionCookie + "=", "Path=/approvals", "Max-Age=43200", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(ck, want) {
			t.Errorf("cookie %q lacks %q", ck, want)
		}
	}
	if strings.Contains(ck, "Secure") || strings.Contains(ck, approverToken) {
		t.Errorf("cookie %q: Secure over plain HTTP, or the token", ck)
	}
	// Expired and forged sessions sign nobody in.
	ss := newSessions([]byte(approverToken))
	old := ss.issue(time.Now().Add(-sessionTTL - time.Minute))
	other := newSessions([]byte("another-token-0123456789")).issue(time.Now())
	for _, v := range []string{old, other, "1.2", "garbage"} {
		if ss.valid(v, time.Now()) {
			t.Errorf("session %q accepted", v)
		}
	}
}

var rowCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func TestSharedListsAndDecides(t *testing.T) {
	store := newNotifyStore()
	rig := newSharedRig(t, store)
	out1 := askShared(t, t.Context(), rig.s, store, sharedRequest("first"))
	r2 := sharedRequest("second")
	r2.Tool = `<script>x</script>`
	out2 := askShared(t, t.Context(), rig.s, store, r2)
	c := browserClient(t)
	list := rig.signIn(t, c)
	i1, i2 := strings.Index(list.body, `id="p-first"`), strings.Index(list.body, `id="p-second"`)
	if i1 < 0 || i2 < i1 {
		t.Fatalf("rows missing or out of order:\n%s", list.body)
	}
	for _, want := range []string{`class="server"`, `class="tool">&lt;script&gt;x&lt;/script&gt;`, `<pre class="command">`, `class="trigger"`, `class="client"`, `class="timeleft"`, `class="approve"`, `class="deny"`, `http-equiv="refresh"`} {
		if !strings.Contains(list.body, want) {
			t.Errorf("list lacks %s", want)
		}
	}
	checkHeaders(t, "list", list.header)
	csrf := rowCSRF.FindStringSubmatch(list.body)[1]
	decide := func(id, d string) page {
		return post(t, c, rig.url()+"/decide", rig.srv.URL, url.Values{"id": {id}, "decision": {d}, "csrf": {csrf}}, nil)
	}
	if p := decide("first", "approve"); p.status != http.StatusOK || !strings.Contains(p.body, `data-outcome="approved"`) {
		t.Fatalf("approve: %d\n%s", p.status, p.body)
	}
	if o := outcome(t, out1); o != Approved {
		t.Fatalf("first: %q", o)
	}
	if p := decide("first", "deny"); p.status != http.StatusConflict {
		t.Errorf("second decision: %d, want 409", p.status)
	}
	if p := decide("nosuch", "deny"); p.status != http.StatusConflict || !strings.Contains(p.body, "no longer pending") {
		t.Errorf("unknown id: %d\n%s", p.status, p.body)
	}
	for name, h := range map[string]map[string]string{
		"foreign origin": {"Origin": "http://evil.example"},
		"no origin":      {"Origin": ""},
		"cross-site":     {"Sec-Fetch-Site": "cross-site"},
	} {
		if p := post(t, c, rig.url()+"/decide", rig.srv.URL, url.Values{"id": {"second"}, "decision": {"approve"}, "csrf": {csrf}}, h); p.status != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, p.status)
		}
	}
	if p := post(t, c, rig.url()+"/decide", rig.srv.URL, url.Values{"id": {"second"}, "decision": {"approve"}, "csrf": {"forged"}}, nil); p.status != http.StatusForbidden {
		t.Errorf("forged csrf: %d", p.status)
	}
	if p := post(t, browserClient(t), rig.url()+"/decide", rig.srv.URL, url.Values{"id": {"second"}, "decision": {"approve"}, "csrf": {csrf}}, nil); p.status != http.StatusForbidden {
		t.Errorf("no session: %d", p.status)
	}
	pending(t, out2)
	decide("second", "deny")
	if o := outcome(t, out2); o != Denied {
		t.Fatalf("second: %q", o)
	}
	if ps, _ := store.List(t.Context()); len(ps) != 0 {
		t.Errorf("store still holds %v", ps)
	}
}

func TestSharedReplicasDecideEachOthersApprovals(t *testing.T) {
	store := newNotifyStore()
	asking, deciding := newSharedRig(t, store), newSharedRig(t, store)
	out := askShared(t, t.Context(), asking.s, store, sharedRequest("r1"))
	// A session of one replica is good on the other: same token.
	c := browserClient(t)
	login := post(t, c, asking.url()+"/login", asking.srv.URL, url.Values{"token": {approverToken}}, nil)
	csrf := rowCSRF.FindStringSubmatch(login.body)[1]
	u, _ := url.Parse(asking.srv.URL)
	cookies := c.Jar.Cookies(&url.URL{Scheme: "http", Host: u.Host, Path: "/approvals"})
	req, _ := http.NewRequest(http.MethodPost, deciding.url()+"/decide", strings.NewReader(url.Values{"id": {"r1"}, "decision": {"approve"}, "csrf": {csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", deciding.srv.URL)
	req.AddCookie(cookies[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if p := readPage(t, resp); p.status != http.StatusOK {
		t.Fatalf("deciding on the other replica: %d\n%s", p.status, p.body)
	}
	if o := outcome(t, out); o != Approved {
		t.Fatalf("outcome %q", o)
	}
}

func TestSharedDeadlineAndCancel(t *testing.T) {
	store := newNotifyStore()
	rig := newSharedRig(t, store)
	r := sharedRequest("late")
	r.Deadline = time.Now()
	if o := outcome(t, askShared(t, t.Context(), rig.s, store, r)); o != TimedOut {
		t.Errorf("deadline: %q", o)
	}
	ctx, cancel := context.WithCancel(t.Context())
	out := askShared(t, ctx, rig.s, store, sharedRequest("gone"))
	cancel()
	if o := outcome(t, out); o != Cancelled {
		t.Errorf("cancel: %q", o)
	}
	if ps, _ := store.List(t.Context()); len(ps) != 0 {
		t.Errorf("store still holds %v", ps)
	}
}

type failingStore struct{ *MemoryStore }

func (*failingStore) Put(context.Context, Pending) error { return errors.New("store down") }

func TestSharedStoreFailureIsAnError(t *testing.T) {
	s, err := NewShared(SharedOptions{Token: []byte(approverToken), Store: &failingStore{NewMemoryStore()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(t.Context(), sharedRequest("x")); err == nil || !strings.Contains(err.Error(), "store down") {
		t.Errorf("Ask: %v", err)
	}
}

func TestSharedOverTLSSetsASecureCookie(t *testing.T) {
	s, err := NewShared(SharedOptions{Token: []byte(approverToken), Store: NewMemoryStore(), Base: "/ok/"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(s.Handler())
	t.Cleanup(srv.Close)
	c := srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if p := post(t, c, srv.URL+"/ok/login", "http"+strings.TrimPrefix(srv.URL, "https"), url.Values{"token": {approverToken}}, nil); p.status != http.StatusForbidden {
		t.Errorf("plain-http origin on TLS: %d", p.status)
	}
	p := post(t, c, srv.URL+"/ok/login", srv.URL, url.Values{"token": {approverToken}}, nil)
	if ck := p.header.Get("Set-Cookie"); p.status != http.StatusSeeOther || !strings.Contains(ck, "Secure") || !strings.Contains(ck, "Path=/ok;") {
		t.Errorf("login over TLS: %d, cookie %q", p.status, ck)
	}
}

// Behind a proxy that ends TLS, the session cookie is Secure when the
// proxy says the person came over HTTPS; on plain HTTP it is not, or the
// browser would never send it back.
func TestSharedBehindATLSProxySetsASecureCookie(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header map[string]string
		secure bool
	}{
		{"plain HTTP", nil, false},
		{"X-Forwarded-Proto https", map[string]string{"X-Forwarded-Proto": "https"}, true},
		{"X-Forwarded-Proto, first proxy's word", map[string]string{"X-Forwarded-Proto": "HTTPS, http"}, true},
		{"X-Forwarded-Proto http", map[string]string{"X-Forwarded-Proto": "http"}, false},
		{"Forwarded proto=https", map[string]string{"Forwarded": `for=192.0.2.60;proto=https;by=203.0.113.43`}, true},
		{"Forwarded, quoted", map[string]string{"Forwarded": `proto="https", proto=http`}, true},
		{"Forwarded proto=http", map[string]string{"Forwarded": `for=192.0.2.60;proto=http`}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rig := newSharedRig(t, NewMemoryStore())
			c := browserClient(t)
			c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			p := post(t, c, rig.url()+"/login", rig.srv.URL, url.Values{"token": {approverToken}}, tc.header)
			ck := p.header.Get("Set-Cookie")
			if p.status != http.StatusSeeOther || ck == "" || strings.Contains(ck, "Secure") != tc.secure {
				t.Errorf("sign-in: %d, cookie %q; want Secure %v", p.status, ck, tc.secure)
			}
		})
	}
}

// TestSharedPageBehindAProxyThatRewritesHostAcceptsItsPublicOrigin: a
// proxy in front passes on a Host of its own, so the browser's Origin (the
// public one) never matches it. Given that origin, the page takes the
// sign-in and the decision from it, and still refuses any other origin;
// without it, the sign-in is refused.
func TestSharedPageBehindAProxyThatRewritesHostAcceptsItsPublicOrigin(t *testing.T) {
	const public = "https://approvals.example.com"
	store := newNotifyStore()
	for _, configured := range []bool{false, true} {
		o := SharedOptions{Token: []byte(approverToken), Store: store, Logger: slog.New(slog.DiscardHandler)}
		if configured {
			o.Origins = []string{public}
		}
		s, err := NewShared(o)
		if err != nil {
			t.Fatal(err)
		}
		proxied := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Host = "backend.internal:8080" // what the proxy passes on
			s.Handler().ServeHTTP(w, r)
		})
		srv := httptest.NewServer(proxied)
		t.Cleanup(srv.Close)
		c := browserClient(t)
		login := post(t, c, srv.URL+"/approvals/login", public, url.Values{"token": {approverToken}}, nil)
		if !configured {
			if login.status != http.StatusForbidden {
				t.Errorf("without the public origin configured, the sign-in got %d, want 403", login.status)
			}
			continue
		}
		if login.status != http.StatusOK {
			t.Fatalf("signing in from the configured public origin: %d\n%s", login.status, login.body)
		}
		out := askShared(t, t.Context(), s, store, sharedRequest("proxied"))
		list := get(t, c, srv.URL+"/approvals")
		csrf := rowCSRF.FindStringSubmatch(list.body)[1]
		form := url.Values{"id": {"proxied"}, "decision": {"approve"}, "csrf": {csrf}}
		if p := post(t, c, srv.URL+"/approvals/decide", "https://evil.example", form, nil); p.status != http.StatusForbidden {
			t.Errorf("a decision from another origin got %d, want 403", p.status)
		}
		if p := post(t, c, srv.URL+"/approvals/decide", public, form, nil); p.status != http.StatusOK {
			t.Fatalf("deciding from the public origin: %d\n%s", p.status, p.body)
		}
		if got := outcome(t, out); got != Approved {
			t.Errorf("the approval decided from the public origin is %q", got)
		}
	}
	for _, bad := range []string{"approvals.example.com", "https://approvals.example.com/", "ftp://x", "https://u:p@x"} {
		if _, err := NewShared(SharedOptions{Token: []byte(approverToken), Store: store, Origins: []string{bad}}); err == nil {
			t.Errorf("NewShared accepted the origin %q", bad)
		}
	}
}
