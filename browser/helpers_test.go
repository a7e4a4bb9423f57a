package browser

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

type askResult struct {
	o   Outcome
	err error
}

// localRig is a Local whose opener hands the URL to the test instead of a
// browser.
type localRig struct {
	l    *Local
	clk  *testsupport.Clock
	logs *testsupport.LogBuffer
	urls chan string
}

func newClock() *testsupport.Clock {
	return testsupport.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

func newLocalRig(t *testing.T, hold time.Duration) *localRig {
	t.Helper()
	rig := &localRig{clk: newClock(), logs: &testsupport.LogBuffer{}, urls: make(chan string, 4)}
	rig.l = NewLocal(LocalOptions{
		Open:   func(_ context.Context, u string) error { rig.urls <- u; return nil },
		Logger: slog.New(slog.NewTextHandler(rig.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Hold:   hold,
		Now:    rig.clk.Now,
	})
	// Every approval launches the opener, as the tests of one page expect;
	// the tests of the opener's pace set it back.
	rig.l.openEvery = 0
	t.Cleanup(func() { rig.l.Close() })
	return rig
}

// request is an approval with hostile-looking but valid fields.
func (rig *localRig) request(id string) Request {
	return Request{ID: id, Server: "nats-ops", Tool: "stream_rm", CommandLine: "nats stream rm ORDERS --force",
		Trigger: "ai:confirm", Client: "claude-code 2.1 (session s1)", Deadline: rig.clk.Now().Add(time.Minute)}
}

// ask starts Ask and returns the page URL the opener got and the result
// channel.
func (rig *localRig) ask(t *testing.T, ctx context.Context, r Request) (string, <-chan askResult) {
	t.Helper()
	out := make(chan askResult, 1)
	go func() {
		o, err := rig.l.Ask(ctx, r)
		out <- askResult{o, err}
	}()
	select {
	case u := <-rig.urls:
		return u, out
	case res := <-out:
		t.Fatalf("Ask ended before opening the page: %v %v", res.o, res.err)
	}
	return "", nil
}

func outcome(t *testing.T, out <-chan askResult) Outcome {
	t.Helper()
	res := <-out
	if res.err != nil {
		t.Fatalf("Ask: %v", res.err)
	}
	return res.o
}

// pending asserts that Ask has not returned yet.
func pending(t *testing.T, out <-chan askResult) {
	t.Helper()
	select {
	case res := <-out:
		t.Fatalf("approval ended (%v, %v); want it still pending", res.o, res.err)
	default:
	}
}

// browserClient is an HTTP client with its own cookie jar, as one browser.
func browserClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar}
}

type page struct {
	status int
	header http.Header
	body   string
}

func get(t *testing.T, c *http.Client, u string) page {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	return readPage(t, resp)
}

func readPage(t *testing.T, resp *http.Response) page {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{resp.StatusCode, resp.Header, string(b)}
}

// post sends a form as a browser would from origin; header entries
// override or (with an empty value) remove headers.
func post(t *testing.T, c *http.Client, u, origin string, f url.Values, header map[string]string) page {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(f.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	return readPage(t, resp)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfOf(t *testing.T, p page) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no csrf field in the page:\n%s", p.body)
	}
	return m[1]
}

// pageParts splits a page URL into its origin, page path and ticket.
func pageParts(t *testing.T, u string) (origin, path, ticket string) {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Scheme + "://" + p.Host, p.Path, p.Query().Get("t")
}
