package chromium

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// margin is what each step leaves of the test's deadline, so that a step
// that hangs fails the test with its own message, and cleanup (stopping the
// browser) still has time to run, before the test binary's timeout panics.
const margin = 15 * time.Second

// Deadline bounds one step of a test in a browser: the test's deadline less
// a margin for cleanup, or no bound when the test has none.
func Deadline(t testing.TB, ctx context.Context) (context.Context, context.CancelFunc) {
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if d, ok := dt.Deadline(); ok {
			return context.WithDeadline(ctx, d.Add(-margin))
		}
	}
	return context.WithCancel(ctx)
}

// step runs actions in the tab of ctx within [Deadline], failing the test
// with what as the step's name.
func step(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := Deadline(t, ctx)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Navigate loads url in the tab of ctx, waits for the page to load and
// returns the HTTP status of the document.
func Navigate(t testing.TB, ctx context.Context, url string) int64 {
	t.Helper()
	sctx, cancel := Deadline(t, ctx)
	defer cancel()
	resp, err := chromedp.Run(sctx, chromedp.NavigateResponse(url))
	if err != nil {
		t.Fatalf("navigating to %s: %v", url, err)
	}
	if resp == nil {
		t.Fatalf("navigating to %s: no HTTP response", url)
	}
	return resp.Status
}

// WaitVisible waits until the element the CSS selector sel matches is
// visible.
func WaitVisible(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	step(t, ctx, "waiting for "+sel+" to be visible", chromedp.WaitVisible(chromedp.CSS(sel)))
}

// Click waits until the element sel (a CSS selector) is visible and clicks
// it with the mouse, as a person would.
func Click(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	step(t, ctx, "clicking "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// ClickThrough clicks sel (a CSS selector) as [Click] does, waits for the
// page the click leads to and returns that page's HTTP status.
func ClickThrough(t testing.TB, ctx context.Context, sel string) int64 {
	t.Helper()
	return through(t, ctx, "clicking "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// Submit submits the form sel (a CSS selector) as its page's script would,
// waits for the page it leads to and returns that page's HTTP status.
func Submit(t testing.TB, ctx context.Context, sel string) int64 {
	t.Helper()
	return through(t, ctx, "submitting "+sel, chromedp.Submit(chromedp.CSS(sel)))
}

// through runs action, which navigates, and returns the HTTP status of the
// page it leads to once that page has loaded.
func through(t testing.TB, ctx context.Context, what string, action chromedp.Action[chromedp.Void]) int64 {
	t.Helper()
	sctx, cancel := Deadline(t, ctx)
	defer cancel()
	resp, err := chromedp.RunResponse(sctx, action)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if resp == nil {
		t.Fatalf("%s: no HTTP response", what)
	}
	return resp.Status
}

// SetValue waits until the element sel (a CSS selector) is visible and types
// value into it.
func SetValue(t testing.TB, ctx context.Context, sel, value string) {
	t.Helper()
	step(t, ctx, "typing into "+sel,
		chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.SendKeys(chromedp.CSS(sel), value))
}

// Text waits until the element sel (a CSS selector) is visible and returns
// its text content, exactly as the document holds it (not as CSS lays it
// out).
func Text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	sctx, cancel := Deadline(t, ctx)
	defer cancel()
	s, err := chromedp.Run(sctx, chromedp.TextContent(chromedp.CSS(sel), chromedp.NodeVisible))
	if err != nil {
		t.Fatalf("reading the text of %s: %v", sel, err)
	}
	return s
}

// Eval evaluates the JavaScript expression js in the page of ctx, awaiting
// it when it is a promise, and returns its value.
func Eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	sctx, cancel := Deadline(t, ctx)
	defer cancel()
	v, err := chromedp.Run(sctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// WaitTrue waits until the JavaScript expression js is truthy in the page of
// ctx. The browser re-evaluates it on every animation frame; the step is
// bounded by [Deadline].
func WaitTrue(t testing.TB, ctx context.Context, js string) {
	t.Helper()
	step(t, ctx, "waiting for "+js, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(0)))
}

// CountInFrame returns how many elements the CSS selector sel matches in the
// document of the frame element frame (a CSS selector of the page of ctx),
// without waiting for any to appear. It sees into a frame of another origin,
// as the page itself cannot.
func CountInFrame(t testing.TB, ctx context.Context, frame, sel string) int {
	t.Helper()
	sctx, cancel := Deadline(t, ctx)
	defer cancel()
	frames, err := chromedp.Run(sctx, chromedp.Nodes(chromedp.CSS(frame)))
	if err != nil {
		t.Fatalf("finding the frame %s: %v", frame, err)
	}
	nodes, err := chromedp.Run(sctx, chromedp.Nodes(chromedp.CSSAll(sel), chromedp.FromNode(frames[0]), chromedp.AtLeast(0)))
	if err != nil {
		t.Fatalf("looking for %s in the frame %s: %v", sel, frame, err)
	}
	return len(nodes)
}
