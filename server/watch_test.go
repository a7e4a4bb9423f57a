package server

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// watchHarness runs a Watcher over one file with fast timing. Reload
// results are scripted through reloads; published sets arrive on published.
type watchHarness struct {
	path      string
	reloads   chan func() (*exposure.ToolSet, error) // the next reload's result
	attempts  chan struct{}                          // one per reload attempt, after it returned
	published chan *exposure.ToolSet
	signals   chan os.Signal
	logs      *logBuffer
}

// newWatcher writes the watched file and builds a Watcher over it whose
// Baseline is taken now, as fisk-mcp takes it before its first load. The
// watcher is not running yet: see run.
func newWatcher(t *testing.T) (*watchHarness, *Watcher) {
	t.Helper()
	h := &watchHarness{
		path:      tempPath(t, "binary"),
		reloads:   make(chan func() (*exposure.ToolSet, error), 10),
		attempts:  make(chan struct{}, 10),
		published: make(chan *exposure.ToolSet, 10),
		signals:   make(chan os.Signal, 1),
		logs:      &logBuffer{},
	}
	if err := os.WriteFile(h.path, []byte("version 1"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := &Watcher{
		Paths: []string{h.path},
		// A reload the test did not script waits until the watcher stops,
		// rather than failing the test from the watcher's goroutine and
		// holding the cleanup for guard: a busy machine can let the
		// watcher see one in-place write twice (truncated, then written,
		// more than Debounce apart), and the extra reload is harmless.
		// The test's own waits are bounded by guard.
		Reload: func(ctx context.Context) (*exposure.ToolSet, error) {
			select {
			case next := <-h.reloads:
				defer func() { h.attempts <- struct{}{} }()
				return next()
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		Publish:  func(s *exposure.ToolSet) { h.published <- s },
		Logger:   slog.New(slog.NewJSONHandler(h.logs, nil)),
		Interval: 5 * time.Millisecond,
		Debounce: 20 * time.Millisecond,
		Signals:  h.signals,
	}
	w.Baseline = w.Snapshot()
	return h, w
}

// run runs w until the test ends.
func (h *watchHarness) run(t *testing.T, w *Watcher) {
	ctx, cancel := context.WithCancel(context.Background())
	done := background(func() struct{} { w.Run(ctx); return struct{}{} })
	t.Cleanup(func() {
		cancel()
		wait(t, done, "the watcher to stop")
	})
}

// startWatcher runs a watcher whose baseline is the file as first written:
// every later write is a change it must notice.
func startWatcher(t *testing.T) *watchHarness {
	t.Helper()
	h, w := newWatcher(t)
	h.run(t, w)
	return h
}

func TestWatcherReloadsABinaryReplacedBeforeItStarted(t *testing.T) {
	// fisk-mcp snapshots the binaries, loads them, then starts the
	// watcher: a binary replaced in between must not pass for the one
	// that was loaded.
	h, w := newWatcher(t)
	if err := os.WriteFile(h.path, []byte("version 2, written during the first load"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := customSet(t, echoTool(t))
	h.reloads <- func() (*exposure.ToolSet, error) { return want, nil }
	h.run(t, w)
	if got := wait(t, h.published, "the reload of the binary replaced before Run"); got != want {
		t.Errorf("published %p, want the reloaded set %p", got, want)
	}
	if !strings.Contains(h.logs.String(), "a watched binary changed") {
		t.Errorf("the change was not logged:\n%s", h.logs)
	}
}

func TestWatcherPublishesANewSetWhenTheBinaryChanges(t *testing.T) {
	h := startWatcher(t)
	want := customSet(t, echoTool(t))
	h.reloads <- func() (*exposure.ToolSet, error) { return want, nil }
	if err := os.WriteFile(h.path, []byte("version 2, longer"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, h.published, "the reloaded set"); got != want {
		t.Errorf("published %p, want the reloaded set %p", got, want)
	}
}

func TestWatcherNoticesAReplacedBinary(t *testing.T) {
	h := startWatcher(t)
	want := customSet(t, echoTool(t))
	h.reloads <- func() (*exposure.ToolSet, error) { return want, nil }
	// Same size, same mtime, new inode: how a package manager installs.
	info, err := os.Stat(h.path)
	if err != nil {
		t.Fatal(err)
	}
	next := h.path + ".new"
	if err := os.WriteFile(next, []byte("version 9"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(next, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, h.path); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, h.published, "the reloaded set"); got != want {
		t.Errorf("published %p, want the reloaded set", got)
	}
}

func TestWatcherKeepsTheOldSetWhenAReloadFails(t *testing.T) {
	h := startWatcher(t)
	h.reloads <- func() (*exposure.ToolSet, error) { return nil, errors.New("introspection exited 2") }
	if err := os.WriteFile(h.path, []byte("version 2, broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	wait(t, h.attempts, "the failing reload")

	// SIGHUP forces a reload even though the file did not change again.
	// The watcher handles one event at a time, so anything the failed
	// reload published would arrive before this set.
	want := customSet(t, echoTool(t))
	h.reloads <- func() (*exposure.ToolSet, error) { return want, nil }
	h.signals <- syscall.SIGHUP
	if got := wait(t, h.published, "the set reloaded on SIGHUP"); got != want {
		t.Errorf("published %p, want the set reloaded on SIGHUP: the failed reload published something", got)
	}
	logs := h.logs.String()
	for _, want := range []string{"introspection exited 2", "the previous tool set stays published", "whose binary changed since it was loaded is refused", "send SIGHUP"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the failure log does not say %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "still serving the previous tools") {
		t.Errorf("the failure log claims the previous tools are all still served:\n%s", logs)
	}
}

func TestWatcherLogsToolsSkippedOnReload(t *testing.T) {
	h := startWatcher(t)
	set, err := exposure.Build(nil, []exposure.Tool{echoTool(t), echoTool(t)}, exposure.Policy{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Skipped()) == 0 {
		t.Fatal("the duplicate custom tool was not skipped; the test needs a collision")
	}
	h.reloads <- func() (*exposure.ToolSet, error) { return set, nil }
	h.signals <- syscall.SIGHUP
	wait(t, h.published, "the reloaded set")
	if !strings.Contains(h.logs.String(), "tool skipped on reload") || !strings.Contains(h.logs.String(), "echo_json") {
		t.Errorf("the skipped tool was not logged:\n%s", h.logs)
	}
}
