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

func startWatcher(t *testing.T) *watchHarness {
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
		Reload: func(context.Context) (*exposure.ToolSet, error) {
			next := wait(t, h.reloads, "a scripted reload result")
			defer func() { h.attempts <- struct{}{} }()
			return next()
		},
		Publish:  func(s *exposure.ToolSet) { h.published <- s },
		Logger:   slog.New(slog.NewJSONHandler(h.logs, nil)),
		Interval: 5 * time.Millisecond,
		Debounce: 20 * time.Millisecond,
		Signals:  h.signals,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := background(func() struct{} { w.Run(ctx); return struct{}{} })
	t.Cleanup(func() {
		cancel()
		wait(t, done, "the watcher to stop")
	})
	// The watcher takes its baseline when Run starts, which may be after
	// the test's first write. A SIGHUP reload retakes it; once its set is
	// published, every later write is a change the watcher must notice.
	h.reloads <- func() (*exposure.ToolSet, error) { return customSet(t), nil }
	h.signals <- syscall.SIGHUP
	wait(t, h.published, "the baseline reload")
	wait(t, h.attempts, "the baseline reload")
	return h
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
	if !strings.Contains(h.logs.String(), "introspection exited 2") {
		t.Errorf("the failure was not logged:\n%s", h.logs)
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
