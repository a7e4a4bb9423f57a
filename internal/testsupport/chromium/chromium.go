// Package chromium runs a headless Chromium for tests that must see a page
// as a person's browser sees it: real cookies, redirects, Content Security
// Policy, frames and same-origin rules, none of which an HTTP client checks.
//
// [Start] starts one browser per test, with a fresh profile in the test's
// temporary directory, and stops it (every process of it) when the test
// ends. The helpers ([Navigate], [Click], [Text], [WaitVisible], [Eval])
// fail the test instead of returning errors, and bound each step by the
// test's own deadline rather than by a guessed timeout, so that a page that
// never shows an element fails the test with the selector it waited for.
//
// It does not download a browser: it runs Debian's chromium package, which
// .ci/run installs (`make chromium`). Without a browser, tests skip, except
// under CI=true, where they fail: CI must never pass by not looking.
//
// Only tests import it.
package chromium

import (
	"context"
	"errors"
	"fmt"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Candidates are the Chromium binaries Find tries, in order, after the
// CHROMIUM environment variable. Debian's /usr/bin/chromium is a shell
// wrapper that adds flags of its own (extensions, GPU rasterisation); the
// binary behind it runs exactly the flags of [Start].
var Candidates = []string{"/usr/lib/chromium/chromium", "/usr/bin/chromium", "chromium", "chromium-browser"}

// ErrNoChromium is returned (wrapped) by [Find] when no browser is installed.
var ErrNoChromium = errors.New("no Chromium installed")

// Find returns the Chromium binary to run: $CHROMIUM when set, otherwise the
// first of [Candidates] that exists.
func Find() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		full, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("CHROMIUM=%q: %w; set it to a Chromium binary or unset it", p, err)
		}
		return full, nil
	}
	for _, c := range Candidates {
		if full, err := exec.LookPath(c); err == nil {
			return full, nil
		}
	}
	return "", fmt.Errorf("%w (tried %s): install Debian's chromium package (`make chromium` as root, or apt-get install chromium) or set CHROMIUM to a Chromium binary",
		ErrNoChromium, strings.Join(Candidates, ", "))
}

// Flags are the command-line flags of every browser Start starts, besides
// chromedp's defaults and --user-data-dir. The network of CI machines is
// closed: without the background-networking flags Chromium's own connections
// to Google's services fail at every start, many at a time.
var Flags = []chromedp.ExecAllocatorOption{
	chromedp.Headless,
	chromedp.NoSandbox, // CI runs as root, where the sandbox refuses to start
	chromedp.DisableGPU,
	chromedp.NoFirstRun,
	chromedp.Flag("disable-quic", true),
	chromedp.Flag("disable-background-networking", true),
	chromedp.Flag("disable-component-update", true),
	chromedp.Flag("disable-sync", true),
	chromedp.Flag("disable-dev-shm-usage", true),
}

// Start starts a headless Chromium with a fresh profile under t.TempDir and
// returns the chromedp context of its first tab; [NewTab] opens more. The
// browser and all its processes are stopped when the test ends.
//
// Without Chromium the test is skipped, saying how to install it; under
// CI=true it fails instead.
func Start(t testing.TB) context.Context {
	t.Helper()
	ctx, _ := start(t)
	return ctx
}

// start is Start, also returning the profile directory, which names the
// browser's processes on their command lines.
func start(t testing.TB) (context.Context, string) {
	t.Helper()
	bin, err := Find()
	testsupport.RequireTool(t, "browser tests (Chromium)", err)
	profile := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], Flags...)
	opts = append(opts, chromedp.ExecPath(bin), chromedp.UserDataDir(profile))

	// chromedp logs from its own goroutines; a log after the test ended
	// would panic, so logging stops once the browser is gone.
	var stopped atomic.Bool
	logf := func(format string, args ...any) {
		if !stopped.Load() {
			t.Logf("chromium: "+format, args...)
		}
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithErrorf(logf))
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc() // waits for the browser process to exit
		stopped.Store(true)
		// Helpers of the browser (zygotes, utilities) can outlive it for a
		// moment; wait for them, so that neither a process nor a file in the
		// profile outlives the test.
		if err := awaitGone(profile, 10*time.Second); err != nil {
			t.Error(err)
		}
	})
	// The first run starts the browser and binds its life to ctx, so it
	// gets no deadline of its own (a deadline would stop the browser).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v; run it by hand with --headless to see why", bin, err)
	}
	return ctx, profile
}

// NewTab opens another tab in the browser of ctx (a context from [Start] or
// NewTab) and returns its context and a function that closes it; the tab is
// also closed when the test ends.
func NewTab(t testing.TB, ctx context.Context) (context.Context, func()) {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	// As in start: the first run opens the tab and binds it to its
	// context, which must be the tab's own.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return tab, cancel
}

// processesUsing returns the IDs of the processes whose command line holds
// --user-data-dir=profile, as pgrep finds them.
func processesUsing(profile string) ([]int, error) {
	out, err := exec.Command("pgrep", "-f", "--", regexp.QuoteMeta("--user-data-dir="+profile)).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 { // pgrep: nothing matched
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pgrep: %w; install procps", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("pgrep printed %q", f)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// awaitGone waits until no process uses profile, and kills those still there
// after patience: patience only bounds a hang, it does not synchronise.
func awaitGone(profile string, patience time.Duration) error {
	deadline := time.Now().Add(patience)
	for {
		pids, err := processesUsing(profile)
		if err != nil || len(pids) == 0 {
			return err
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			}
			return fmt.Errorf("chromium processes %v were still running %v after the browser stopped; killed them", pids, patience)
		}
		time.Sleep(20 * time.Millisecond) // polling the process table; nothing to wait on
	}
}
