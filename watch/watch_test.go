package watch_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/watch"
)

// patience bounds every wait for the watcher. It only bounds a failure:
// the tests synchronise on what the watcher reports, never on time.
const patience = 30 * time.Second

// watchHarness runs a Watcher over one file with fast timing. Reload
// results are scripted through reloads; published sets arrive on published.
type watchHarness struct {
	path      string
	reloads   chan func() (*exposure.ToolSet, error) // the next reload's result
	attempts  chan struct{}                          // one per reload attempt, after it returned
	published chan *exposure.ToolSet
	signals   chan os.Signal
	logs      *testsupport.LogBuffer
}

// newWatcher writes the watched file and builds a Watcher over it whose
// Baseline is taken now, as fisk-mcp takes it before its first load. The
// watcher is not running yet: see run.
func newWatcher(t *testing.T) (*watchHarness, *watch.Watcher) {
	t.Helper()
	h := &watchHarness{
		path:      filepath.Join(t.TempDir(), "binary"),
		reloads:   make(chan func() (*exposure.ToolSet, error), 10),
		attempts:  make(chan struct{}, 10),
		published: make(chan *exposure.ToolSet, 10),
		signals:   make(chan os.Signal, 1),
		logs:      &testsupport.LogBuffer{},
	}
	if err := os.WriteFile(h.path, []byte("version 1"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := &watch.Watcher{
		Paths: []string{h.path},
		// A reload the test did not script waits until the watcher stops,
		// rather than failing the test from the watcher's goroutine and
		// holding the cleanup: a busy machine can let the watcher see one
		// in-place write twice (truncated, then written, more than
		// Debounce apart), and the extra reload is harmless. The test's
		// own waits are bounded by patience.
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
func (h *watchHarness) run(t *testing.T, w *watch.Watcher) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		w.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		testsupport.Await(t, stopped, patience, "the watcher to stop")
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

// toolSet is a new tool set of the named in-process tools (a name twice is
// a collision, which the reload skips).
func toolSet(t *testing.T, names ...string) *exposure.ToolSet {
	t.Helper()
	var tools []exposure.Tool
	for _, name := range names {
		tool, err := exposure.NewCustomTool(exposure.CustomSpec{
			Name:        name,
			Description: "Does nothing",
			InputSchema: map[string]any{"type": "object"},
			Fn:          func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage("{}"), nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	s, err := exposure.Rebuild(nil, tools, exposure.Policy{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestWatcherReloadsABinaryReplacedBeforeItStarted(t *testing.T) {
	// fisk-mcp snapshots the binaries, loads them, then starts the
	// watcher: a binary replaced in between must not pass for the one
	// that was loaded.
	h, w := newWatcher(t)
	if err := os.WriteFile(h.path, []byte("version 2, written during the first load"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := toolSet(t, "tool")
	h.reloads <- func() (*exposure.ToolSet, error) { return want, nil }
	h.run(t, w)
	if got := testsupport.Await(t, h.published, patience, "the reload of the binary replaced before Run"); got != want {
		t.Errorf("published %p, want the reloaded set %p", got, want)
	}
	if !strings.Contains(h.logs.String(), "a watched binary changed") {
		t.Errorf("the change was not logged:\n%s", h.logs)
	}
}

func TestWatcherPublishesANewSetWhenTheBinaryChanges(t *testing.T) {
	h := startWatcher(t)
	want := toolSet(t, "tool")
	h.reloads <- func() (*exposure.ToolSet, error) { return want, nil }
	if err := os.WriteFile(h.path, []byte("version 2, longer"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := testsupport.Await(t, h.published, patience, "the reloaded set"); got != want {
		t.Errorf("published %p, want the reloaded set %p", got, want)
	}
}

func TestWatcherNoticesAReplacedBinary(t *testing.T) {
	h := startWatcher(t)
	want := toolSet(t, "tool")
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
	if got := testsupport.Await(t, h.published, patience, "the reloaded set"); got != want {
		t.Errorf("published %p, want the reloaded set", got)
	}
}

func TestWatcherKeepsTheOldSetWhenAReloadFails(t *testing.T) {
	h := startWatcher(t)
	h.reloads <- func() (*exposure.ToolSet, error) { return nil, errors.New("introspection exited 2") }
	if err := os.WriteFile(h.path, []byte("version 2, broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	testsupport.Await(t, h.attempts, patience, "the failing reload")

	// SIGHUP forces a reload even though the file did not change again.
	// The watcher handles one event at a time, so anything the failed
	// reload published would arrive before this set.
	want := toolSet(t, "tool")
	h.reloads <- func() (*exposure.ToolSet, error) { return want, nil }
	h.signals <- syscall.SIGHUP
	if got := testsupport.Await(t, h.published, patience, "the set reloaded on SIGHUP"); got != want {
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
	set := toolSet(t, "echo_json", "echo_json")
	if len(set.Skipped()) == 0 {
		t.Fatal("the duplicate custom tool was not skipped; the test needs a collision")
	}
	h.reloads <- func() (*exposure.ToolSet, error) { return set, nil }
	h.signals <- syscall.SIGHUP
	testsupport.Await(t, h.published, patience, "the reloaded set")
	if !strings.Contains(h.logs.String(), "tool skipped on reload") || !strings.Contains(h.logs.String(), "echo_json") {
		t.Errorf("the skipped tool was not logged:\n%s", h.logs)
	}
}

// The watcher and the check a tool makes before each run read one identity:
// a change that makes calls refuse the binary (here its mode, which leaves
// content, size and modification time alone) also reloads it, instead of
// leaving its tools refused until someone sends SIGHUP.
func TestWatcherReloadsOnAChangeThatMakesCallsRefuseTheBinary(t *testing.T) {
	h := startWatcher(t)
	want := toolSet(t, "tool")
	h.reloads <- func() (*exposure.ToolSet, error) { return want, nil }
	if err := os.Chmod(h.path, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := testsupport.Await(t, h.published, patience, "the reload after chmod"); got != want {
		t.Errorf("published %p, want the reloaded set %p", got, want)
	}
}

// An app named without a directory runs the file found in PATH, and that
// file is the one watched.
func TestWatcherWatchesTheFileABareNameRuns(t *testing.T) {
	h, w := newWatcher(t)
	t.Setenv("PATH", filepath.Dir(h.path))
	w.Paths = []string{filepath.Base(h.path)}
	w.Baseline = w.Snapshot()
	h.run(t, w)
	want := toolSet(t, "tool")
	h.reloads <- func() (*exposure.ToolSet, error) { return want, nil }
	if err := os.WriteFile(h.path, []byte("version 2, in PATH"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := testsupport.Await(t, h.published, patience, "the reload of the file in PATH"); got != want {
		t.Errorf("published %p, want the reloaded set %p", got, want)
	}
}

// A reload under way when the watcher stops is abandoned, not reported as
// a failed reload of a broken binary.
func TestWatcherStoppingDuringAReloadIsNotAFailure(t *testing.T) {
	h, w := newWatcher(t)
	started := make(chan struct{})
	w.Reload = func(ctx context.Context) (*exposure.ToolSet, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		w.Run(ctx)
	}()
	h.signals <- syscall.SIGHUP
	testsupport.Await(t, started, patience, "the reload")
	cancel()
	testsupport.Await(t, stopped, patience, "the watcher to stop")
	if len(h.logs.Records("reload failed; the previous tool set stays published")) != 0 {
		t.Errorf("stopping was logged as a failed reload:\n%s", h.logs)
	}
	if len(h.logs.Records("reload abandoned: the server is stopping")) != 1 {
		t.Errorf("the abandoned reload was not logged:\n%s", h.logs)
	}
}
