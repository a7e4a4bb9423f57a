package browser

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// listOf exchanges the ticket of page URL u in c, which gets the list
// cookie, and returns the listener's origin.
func listOf(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	_, origin, _ := open(t, c, u)
	return origin
}

func TestAFloodOfApprovalsLaunchesTheOpenerOnceAndListsThemAll(t *testing.T) {
	const n = 300
	clk := newClock()
	var launches atomic.Int32
	first := make(chan string, 1)
	l := NewLocal(LocalOptions{
		Open: func(_ context.Context, u string) error {
			if launches.Add(1) == 1 {
				first <- u
			}
			return nil
		},
		Logger:           slog.New(slog.NewTextHandler(&testsupport.LogBuffer{}, nil)),
		Now:              clk.Now,
		PendingPerClient: n + 1,
	})
	t.Cleanup(func() { l.Close() })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := make(chan askResult, n+1)
	for i := range n {
		go func() {
			r := Request{ID: fmt.Sprintf("n%03d", i), Tool: "touch", CommandLine: "touch x", Deadline: clk.Now().Add(time.Minute)}
			o, err := l.Ask(ctx, r)
			out <- askResult{o, err}
		}()
	}
	c := browserClient(t)
	origin := listOf(t, c, <-first)
	// The list says how many wait; once it says all, every Ask has chosen
	// whether to launch the opener.
	for {
		select {
		case res := <-out:
			t.Fatalf("an approval ended while waiting: %v, %v", res.o, res.err)
		default:
		}
		p := get(t, c, origin+"/")
		if p.status != http.StatusOK {
			t.Fatalf("the list: %d\n%s", p.status, p.body)
		}
		if strings.Contains(p.body, fmt.Sprintf(`data-pending="%d"`, n)) {
			if got := strings.Count(p.body, `<section id="p-`); got != ListPage {
				t.Errorf("the list shows %d approvals, want the first %d", got, ListPage)
			}
			break
		}
	}
	if got := launches.Load(); got != 1 {
		t.Fatalf("%d approvals launched the opener %d times, want once", n, got)
	}
	// Once the interval has passed, with no page open, the next launches.
	clk.Advance(DefaultOpenEvery)
	go func() {
		o, err := l.Ask(ctx, Request{ID: "later", Tool: "touch", CommandLine: "touch x", Deadline: clk.Now().Add(time.Minute)})
		out <- askResult{o, err}
	}()
	for {
		p := get(t, c, origin+"/")
		if strings.Contains(p.body, fmt.Sprintf(`data-pending="%d"`, n+1)) {
			break
		}
	}
	cancel()
	for range n + 1 {
		<-out
	}
	if got := launches.Load(); got != 2 {
		t.Fatalf("the opener was launched %d times, want once more after %s", got, DefaultOpenEvery)
	}
}

// events reads an event stream's events, "name data" each.
func events(t *testing.T, c *http.Client, u string) <-chan string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		var name string
		for sc.Scan() {
			switch line := sc.Text(); {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ch <- name + " " + strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return ch
}

func awaitEvent(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	for e := range ch {
		if e == want {
			return
		}
	}
	t.Fatalf("the event stream ended without %q", want)
}

func TestALaterApprovalIsAnnouncedOnTheOpenPageAndApprovedFromTheList(t *testing.T) {
	rig := newLocalRig(t, time.Second)
	rig.l.openEvery = DefaultOpenEvery
	u, _ := rig.ask(t, t.Context(), rig.request("n1"))
	c := browserClient(t)
	_, origin, path := open(t, c, u)
	stream := events(t, c, origin+path+"/events")
	awaitEvent(t, stream, "others 0")
	// Long past the opener's interval: the page open is what keeps it shut.
	rig.clk.Advance(time.Hour)
	r2 := rig.request("n2")
	out2 := make(chan askResult, 1)
	go func() {
		o, err := rig.l.Ask(t.Context(), r2)
		out2 <- askResult{o, err}
	}()
	awaitEvent(t, stream, "others 1")

	list := get(t, c, origin+"/")
	if list.status != http.StatusOK || !strings.Contains(list.body, `<a class="open" href="/a/n1">`) || !strings.Contains(list.body, `action="/a/n2/open"`) {
		t.Fatalf("the list: %d\n%s", list.status, list.body)
	}
	opened := post(t, c, origin+"/a/n2/open", origin, url.Values{"csrf": {csrfOf(t, list)}}, nil)
	if opened.status != http.StatusOK || !strings.Contains(opened.body, `id="approve"`) {
		t.Fatalf("opening n2 from the list: %d\n%s", opened.status, opened.body)
	}
	rig.clk.Advance(time.Second) // the hold, as after a ticket's exchange
	res := post(t, c, origin+"/a/n2/decide", origin, url.Values{"csrf": {csrfOf(t, opened)}, "decision": {"approve"}}, nil)
	if !strings.Contains(res.body, `data-outcome="approved"`) {
		t.Fatalf("deciding n2: %d\n%s", res.status, res.body)
	}
	if o := outcome(t, out2); o != Approved {
		t.Fatalf("n2: %q, want approved", o)
	}
	select {
	case u := <-rig.urls:
		t.Fatalf("the opener was launched again (%s) while a page was open", u)
	default:
	}
}

func TestALaunchPutOffByTheIntervalOpensTheApprovalNobodyOpened(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	rig.l.openEvery = time.Millisecond
	u, _ := rig.ask(t, t.Context(), rig.request("n1"))
	open(t, browserClient(t), u)
	go rig.l.Ask(t.Context(), rig.request("n2"))
	if _, path, _ := pageParts(t, <-rig.urls); path != "/a/n2" {
		t.Fatalf("the launch put off opened %s, want n2's page", path)
	}
}

func TestTheListOpensOnlyWithItsCookieAndAReusedTicketCancelsWhatItOpened(t *testing.T) {
	rig := newLocalRig(t, time.Hour)
	u1, out1 := rig.ask(t, t.Context(), rig.request("n1"))
	_, out2 := rig.ask(t, t.Context(), rig.request("n2"))
	_, keep := rig.ask(t, t.Context(), rig.request("keep")) // keeps the listener open
	origin, _, _ := pageParts(t, u1)
	stranger := browserClient(t)
	if p := get(t, stranger, origin+"/"); p.status != http.StatusForbidden || strings.Contains(p.body, "n2") {
		t.Fatalf("the list without its cookie: %d\n%s", p.status, p.body)
	}
	if p := post(t, stranger, origin+"/a/n2/open", origin, url.Values{}, nil); p.status != http.StatusForbidden {
		t.Fatalf("opening from the list without its cookie: %d\n%s", p.status, p.body)
	}
	// Whoever used n1's ticket first opens n2 from the list; the person's
	// browser then uses the ticket too: both are cancelled.
	thief := browserClient(t)
	listOf(t, thief, u1)
	list := get(t, thief, origin+"/")
	if p := post(t, thief, origin+"/a/n2/open", origin, url.Values{"csrf": {csrfOf(t, list)}}, nil); p.status != http.StatusOK {
		t.Fatalf("opening n2 from the list: %d\n%s", p.status, p.body)
	}
	if p := get(t, browserClient(t), u1); !strings.Contains(p.body, `data-outcome="reused"`) {
		t.Fatalf("second use of n1's ticket: %d\n%s", p.status, p.body)
	}
	for _, out := range []<-chan askResult{out1, out2} {
		if o := outcome(t, out); o != Reused {
			t.Errorf("outcome %q, want reused", o)
		}
	}
	if p := get(t, thief, origin+"/"); p.status != http.StatusForbidden {
		t.Errorf("the list with the cookie of a reused ticket: %d", p.status)
	}
	pending(t, keep)
}
