package browser

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// open exchanges the ticket in c and returns the page and its origin and
// path.
func open(t *testing.T, c *http.Client, u string) (p page, origin, path string) {
	t.Helper()
	origin, path, _ = pageParts(t, u)
	p = get(t, c, u)
	if p.status != http.StatusOK || !strings.Contains(p.body, `id="approve"`) {
		t.Fatalf("opening the page: %d\n%s", p.status, p.body)
	}
	return p, origin, path
}

func TestLocalApproveRunsAfterTheHold(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	c := browserClient(t)
	p, origin, path := open(t, c, u)
	rig.clk.Advance(time.Hour)
	res := post(t, c, origin+path+"/decide", origin, url.Values{"csrf": {csrfOf(t, p)}, "decision": {"approve"}}, nil)
	if res.status != http.StatusOK || !strings.Contains(res.body, `data-outcome="approved"`) {
		t.Fatalf("decision page: %d\n%s", res.status, res.body)
	}
	if o := outcome(t, out); o != Approved {
		t.Fatalf("outcome %q, want approved", o)
	}
}

func TestLocalEarlyApproveTakesEffectWhenTheHoldPasses(t *testing.T) {
	rig := newLocalRig(t, time.Millisecond)
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	c := browserClient(t)
	p, origin, path := open(t, c, u)
	res := post(t, c, origin+path+"/decide", origin, url.Values{"csrf": {csrfOf(t, p)}, "decision": {"approve"}}, nil)
	if !strings.Contains(res.body, `data-outcome="approved"`) {
		t.Fatalf("decision page: %d\n%s", res.status, res.body)
	}
	if o := outcome(t, out); o != Approved {
		t.Fatalf("outcome %q, want approved", o)
	}
}

func TestLocalDenyRefusesAtOnce(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	c := browserClient(t)
	p, origin, path := open(t, c, u)
	res := post(t, c, origin+path+"/decide", origin, url.Values{"csrf": {csrfOf(t, p)}, "decision": {"deny"}}, nil)
	if !strings.Contains(res.body, `data-outcome="denied"`) {
		t.Fatalf("decision page: %d\n%s", res.status, res.body)
	}
	if o := outcome(t, out); o != Denied {
		t.Fatalf("outcome %q, want denied", o)
	}
}

func TestLocalWrongTicketIsForbiddenAndChangesNothing(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	origin, path, _ := pageParts(t, u)
	if p := get(t, browserClient(t), origin+path+"?t=forged"); p.status != http.StatusForbidden {
		t.Fatalf("forged ticket: %d, want 403", p.status)
	}
	pending(t, out)
	c := browserClient(t)
	p, _, _ := open(t, c, u) // the real ticket is still unused
	post(t, c, origin+path+"/decide", origin, url.Values{"csrf": {csrfOf(t, p)}, "decision": {"deny"}}, nil)
	if o := outcome(t, out); o != Denied {
		t.Fatalf("outcome %q, want denied", o)
	}
}

func TestLocalReusedTicketCancels(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	c := browserClient(t)
	open(t, c, u)
	again := get(t, browserClient(t), u)
	if again.status != http.StatusConflict || !strings.Contains(again.body, `data-outcome="reused"`) {
		t.Fatalf("second use of the ticket: %d\n%s", again.status, again.body)
	}
	if o := outcome(t, out); o != Reused {
		t.Fatalf("outcome %q, want reused", o)
	}
}

func TestLocalPageOfTheFirstBrowserShowsTheReuse(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	// A second approval keeps the listener open after the first ends.
	_, keep := rig.ask(t, t.Context(), rig.request("keep"))
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	c := browserClient(t)
	_, origin, path := open(t, c, u)
	get(t, browserClient(t), u)
	if o := outcome(t, out); o != Reused {
		t.Fatalf("outcome %q, want reused", o)
	}
	p := get(t, c, origin+path)
	if !strings.Contains(p.body, `data-outcome="reused"`) || !strings.Contains(p.body, `id="approve" name="decision" value="approve" disabled`) {
		t.Fatalf("page after the reuse:\n%s", p.body)
	}
	pending(t, keep)
}

func TestLocalRefusesDecisionsThatDoNotComeFromThePage(t *testing.T) {
	for name, tc := range map[string]struct {
		noCookie bool
		csrf     string
		header   map[string]string
	}{
		"no cookie":            {noCookie: true},
		"no csrf":              {csrf: "-"},
		"wrong csrf":           {csrf: "AAAA"},
		"foreign origin":       {header: map[string]string{"Origin": "http://evil.example"}},
		"missing origin":       {header: map[string]string{"Origin": ""}},
		"null origin":          {header: map[string]string{"Origin": "null"}},
		"cross-site fetch":     {header: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"same-site other port": {header: map[string]string{"Sec-Fetch-Site": "same-site"}},
	} {
		t.Run(name, func(t *testing.T) {
			rig := newLocalRig(t, time.Hour)
			u, out := rig.ask(t, t.Context(), rig.request("n1"))
			c := browserClient(t)
			p, origin, path := open(t, c, u)
			rig.clk.Advance(time.Hour)
			f := url.Values{"decision": {"approve"}, "csrf": {csrfOf(t, p)}}
			switch tc.csrf {
			case "-":
				f.Del("csrf")
			case "":
			default:
				f.Set("csrf", tc.csrf)
			}
			from := c
			if tc.noCookie {
				from = browserClient(t)
			}
			if res := post(t, from, origin+path+"/decide", origin, f, tc.header); res.status != http.StatusForbidden {
				t.Fatalf("status %d, want 403\n%s", res.status, res.body)
			}
			pending(t, out)
			// Still pending: the page's own deny is taken.
			post(t, c, origin+path+"/decide", origin, url.Values{"csrf": {csrfOf(t, p)}, "decision": {"deny"}}, nil)
			if o := outcome(t, out); o != Denied {
				t.Fatalf("outcome %q, want denied", o)
			}
		})
	}
}

func TestLocalApproveWithinTheHoldIsCancelledByASecondTicketUse(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	thief := browserClient(t)
	p, origin, path := open(t, thief, u)
	held := make(chan struct{})
	rig.l.onHold = func() { close(held) }
	posted := make(chan page, 1)
	go func() {
		posted <- post(t, thief, origin+path+"/decide", origin, url.Values{"csrf": {csrfOf(t, p)}, "decision": {"approve"}}, nil)
	}()
	// The approve is held, so the approval stays open until the browser
	// arrives; its use of the ticket is the second one.
	<-held
	pending(t, out)
	get(t, browserClient(t), u)
	if o := outcome(t, out); o != Reused {
		t.Fatalf("outcome %q, want reused", o)
	}
	if res := <-posted; !strings.Contains(res.body, `data-outcome="reused"`) {
		t.Fatalf("the early approver's page: %d\n%s", res.status, res.body)
	}
}

func TestLocalPageClosedRefuses(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	rig.l.grace = time.Millisecond
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	c := browserClient(t)
	_, origin, path := open(t, c, u)
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, origin+path+"/events", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := resp.Body.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "event: left\ndata: 60\n") {
		t.Fatalf("first event %q", buf[:n])
	}
	pending(t, out)
	cancel()
	resp.Body.Close()
	if o := outcome(t, out); o != Closed {
		t.Fatalf("outcome %q, want closed", o)
	}
}

func TestLocalPagehideBeaconRefuses(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	rig.l.grace = time.Millisecond
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	c := browserClient(t)
	p, origin, path := open(t, c, u)
	if res := post(t, c, origin+path+"/closed", origin, url.Values{"csrf": {csrfOf(t, p)}}, nil); res.status != http.StatusNoContent {
		t.Fatalf("beacon: %d", res.status)
	}
	if o := outcome(t, out); o != Closed {
		t.Fatalf("outcome %q, want closed", o)
	}
}

func TestLocalEventStreamAnnouncesTheOutcome(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	c := browserClient(t)
	p, origin, path := open(t, c, u)
	resp, err := c.Get(origin + path + "/events")
	if err != nil {
		t.Fatal(err)
	}
	post(t, c, origin+path+"/decide", origin, url.Values{"csrf": {csrfOf(t, p)}, "decision": {"deny"}}, nil)
	if o := outcome(t, out); o != Denied {
		t.Fatalf("outcome %q", o)
	}
	s := readPage(t, resp).body
	if !strings.Contains(s, "event: outcome\ndata: {\"outcome\":\"denied\"") {
		t.Fatalf("stream:\n%s", s)
	}
}

func TestLocalDeadlineTimesOut(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	r := rig.request("n1")
	r.Deadline = rig.clk.Now().Add(time.Millisecond)
	_, out := rig.ask(t, t.Context(), r)
	if o := outcome(t, out); o != TimedOut {
		t.Fatalf("outcome %q, want timeout", o)
	}
	// Past its deadline, an approval is not shown at all.
	r.ID, r.Deadline = "n2", rig.clk.Now()
	if o, err := rig.l.Ask(t.Context(), r); o != TimedOut || err != nil {
		t.Fatalf("past deadline: %q %v", o, err)
	}
}

func TestLocalCancelledCall(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	ctx, cancel := context.WithCancel(t.Context())
	_, out := rig.ask(t, ctx, rig.request("n1"))
	cancel()
	if o := outcome(t, out); o != Cancelled {
		t.Fatalf("outcome %q, want cancelled", o)
	}
}

func TestLocalListenerIsOpenOnlyWhilePending(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	ctx1, cancel1 := context.WithCancel(t.Context())
	ctx2, cancel2 := context.WithCancel(t.Context())
	u1, out1 := rig.ask(t, ctx1, rig.request("n1"))
	u2, out2 := rig.ask(t, ctx2, rig.request("n2"))
	o1, _, _ := pageParts(t, u1)
	o2, _, _ := pageParts(t, u2)
	if o1 != o2 {
		t.Fatalf("two pending approvals on two listeners: %s %s", o1, o2)
	}
	addr := strings.TrimPrefix(o1, "http://")
	cancel1()
	outcome(t, out1)
	dial(t, addr, true)
	cancel2()
	outcome(t, out2)
	dial(t, addr, false)
	// The next approval opens a listener again.
	_, out3 := rig.ask(t, t.Context(), rig.request("n3"))
	pending(t, out3)
}

func dial(t *testing.T, addr string, want bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err == nil {
		c.Close()
	}
	if (err == nil) != want {
		t.Fatalf("dialing %s: %v, want open=%v", addr, err, want)
	}
}

func TestLocalRefusesAnotherHost(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	for _, host := range []string{"localhost", "evil.example", "127.0.0.1"} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Host = host + ":" + req.URL.Port()
		if host == "127.0.0.1" {
			req.Host = host // no port: not the listener's exact address
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if p := readPage(t, resp); p.status != http.StatusForbidden {
			t.Fatalf("Host %s: %d, want 403", req.Host, p.status)
		}
	}
	pending(t, out)
	open(t, browserClient(t), u) // the ticket was not used
}

func TestLocalEveryResponseCarriesTheSecurityHeaders(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u, _ := rig.ask(t, t.Context(), rig.request("n1"))
	origin, path, _ := pageParts(t, u)
	noRedirect := browserClient(t)
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	exchange := get(t, noRedirect, u)
	if exchange.status != http.StatusSeeOther || exchange.header.Get("Location") != path {
		t.Fatalf("exchange: %d to %q", exchange.status, exchange.header.Get("Location"))
	}
	ck := exchange.header.Get("Set-Cookie")
	for _, want := range []string{cookieName + "=", "Path=" + path, "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(ck, want) {
			t.Errorf("cookie %q lacks %q", ck, want)
		}
	}
	for name, p := range map[string]page{
		"exchange":  exchange,
		"page":      get(t, noRedirect, origin+path),
		"forbidden": get(t, browserClient(t), origin+path),
		"not found": get(t, noRedirect, origin+"/nothing"),
		"refused":   post(t, noRedirect, origin+path+"/decide", "http://evil.example", nil, nil),
	} {
		checkHeaders(t, name, p.header)
	}
}

func checkHeaders(t *testing.T, name string, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'nonce-", "style-src 'nonce-", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("%s: CSP %q lacks %q", name, csp, want)
		}
	}
	for k, v := range map[string]string{"X-Frame-Options": "DENY", "Cache-Control": "no-store", "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff"} {
		if h.Get(k) != v {
			t.Errorf("%s: %s = %q, want %q", name, k, h.Get(k), v)
		}
	}
}

func TestLocalShowsHostileStringsAsText(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	r := rig.request("n1")
	r.Tool = `<script>alert(1)</script>`
	r.Server = `"><img src=x onerror=alert(1)>`
	r.CommandLine = "nats pub 'a  b'\n    \\u001b[31m --data \"<b>\""
	r.Client = "evil & co \\x07"
	u, _ := rig.ask(t, t.Context(), r)
	p, _, _ := open(t, browserClient(t), u)
	for _, want := range []string{
		`<dd id="tool">&lt;script&gt;alert(1)&lt;/script&gt;</dd>`,
		`<dd id="server">&#34;&gt;&lt;img src=x onerror=alert(1)&gt;</dd>`,
		"<pre id=\"command\">nats pub &#39;a  b&#39;\n    \\u001b[31m --data &#34;&lt;b&gt;&#34;</pre>",
		`<dd id="client">evil &amp; co \x07</dd>`,
		`<dd id="trigger">ai:confirm</dd>`,
		`id="timeleft" data-seconds="60">1:00</dd>`,
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(p.body, "<script>alert") || strings.Contains(p.body, "<img") {
		t.Errorf("hostile markup reached the page:\n%s", p.body)
	}
}

func TestLocalLogsNeverCarryTheSecrets(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u, out := rig.ask(t, t.Context(), rig.request("n1"))
	c := browserClient(t)
	p, origin, path := open(t, c, u)
	_, _, ticket := pageParts(t, u)
	csrf := csrfOf(t, p)
	post(t, c, origin+path+"/decide", origin, url.Values{"csrf": {csrf}, "decision": {"deny"}}, nil)
	outcome(t, out)
	cookie := ""
	for _, ck := range c.Jar.Cookies(&url.URL{Scheme: "http", Host: strings.TrimPrefix(origin, "http://"), Path: path}) {
		cookie = ck.Value
	}
	logs := rig.logs.String()
	for name, s := range map[string]string{"ticket": ticket, "csrf": csrf, "cookie": cookie} {
		if s == "" || strings.Contains(logs, s) {
			t.Errorf("%s %q in the logs (or missing):\n%s", name, s, logs)
		}
	}
	for _, want := range []string{"approval shown in the browser", "approval=n1", "tool=stream_rm", "outcome=denied"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}
