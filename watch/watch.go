// Package watch reloads a tool set when the binaries it was loaded from
// change, or on SIGHUP, and hands the new set on. It decides when to
// reload and what to do when a reload fails; it deliberately knows nothing
// of how a set is built (Watcher.Reload) or served (Watcher.Publish), so
// it has no part in MCP.
package watch

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/fileid"
)

// Defaults for Watcher.
const (
	DefaultInterval = time.Second
	DefaultDebounce = 500 * time.Millisecond
)

// Watcher re-introspects when a watched binary changes and publishes the
// new tool set. A change is noticed by polling the identity of each file a
// command at the path would run (package fileid: device, inode, size,
// modification and change times, mode). It is the identity a tool checks
// before each run, so every change that makes a call refuse to run the
// binary also reloads it; a package manager replaces a binary by rename,
// which changes the inode even when mtime and size do not. A change is
// acted on once a poll finds the files as the previous one did, at least
// Debounce after the last change seen, so a binary being written is not
// introspected half-way, and one that never stops changing is not
// introspected at all. SIGHUP forces a reload at once.
//
// A failed reload keeps the old set published and logs why: a binary the
// operator is in the middle of upgrading must not take every tool away.
// Collisions the reload skipped and warnings are logged.
//
// The watcher compares the files with the state the set in force was loaded
// from. Take that state with Snapshot before the first load and hand it over
// as Baseline: a binary replaced while that load runs, or before Run starts,
// is then reloaded like any later change instead of being taken for the
// binary that was loaded.
type Watcher struct {
	// Paths are the binaries to watch.
	Paths []string
	// Reload builds a complete new set: normally exposure.Load with
	// LoadOptions.Previous set to the set in force (Server.Tools), so that
	// collisions are skipped, not fatal, and a tool being served keeps its
	// name against a newcomer.
	Reload func(context.Context) (*exposure.ToolSet, error)
	// Publish installs a set (normally Server.Publish).
	Publish func(*exposure.ToolSet)
	// Logger receives reload outcomes; nil means slog.Default().
	Logger *slog.Logger
	// Interval is the polling period; 0 means DefaultInterval.
	Interval time.Duration
	// Debounce is how long the files must be unchanged before a reload
	// (rounded up to a poll); 0 means DefaultDebounce.
	Debounce time.Duration
	// Signals, when non-nil, replaces SIGHUP as the force-reload trigger
	// (tests send on it); when nil, Run listens for SIGHUP itself.
	Signals <-chan os.Signal
	// Baseline is the state of Paths the set in force was loaded from,
	// taken with Snapshot before that load. Nil means the state when Run
	// starts, which misses a change made during the first load.
	Baseline *Snapshot
}

// Snapshot is the state of the watched files at one moment: for each path,
// its identity, or that it is missing or cannot be examined.
type Snapshot struct {
	files fileStates
}

// Snapshot records the current state of w.Paths, for Baseline.
func (w *Watcher) Snapshot() *Snapshot {
	return &Snapshot{files: w.state()}
}

// orNow returns the recorded state, or w's current state when s is nil.
func (s *Snapshot) orNow(w *Watcher) fileStates {
	if s == nil {
		return w.state()
	}
	return s.files
}

// Run polls until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	log := w.Logger
	if log == nil {
		log = slog.Default()
	}
	interval, debounce := w.Interval, w.Debounce
	if interval <= 0 {
		interval = DefaultInterval
	}
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	hup := w.Signals
	if hup == nil {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGHUP)
		defer signal.Stop(ch)
		hup = ch
	}

	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	// What the current set was built from, and what the polls saw.
	st := settling{loaded: w.Baseline.orNow(w)}
	st.seen = st.loaded

	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			log.Info("reloading tools on SIGHUP")
			st.reloading(w.state())
			w.reload(ctx, log)
		case at := <-ticker.C:
			if changed := st.poll(w.state(), at, debounce); changed != nil {
				log.Info("a watched binary changed; reloading tools", "changed", changed)
				w.reload(ctx, log)
			}
		}
	}
}

// settling decides when changed files are reloaded: once a poll finds them
// as the previous poll did, at least Debounce after the last change seen.
// Stillness must be seen by a poll, not assumed when a timer fires: with a
// debounce shorter than the interval (the defaults), a timer would fire
// between two polls and reload a binary that changes at every poll, again
// at every poll, and never while it is still.
type settling struct {
	loaded    fileStates // what the current set was built from
	seen      fileStates // what the last poll saw
	changedAt time.Time  // when a poll last saw a change
}

// poll records the files as a poll at time at found them, and returns the
// paths that differ from the loaded state when they are to be reloaded
// now (nil: not now). The loaded state is then taken to be now's, whatever
// the reload's outcome: a failed reload is retried on the next change or
// SIGHUP, not at every poll.
func (s *settling) poll(now fileStates, at time.Time, debounce time.Duration) []string {
	if !now.equal(s.seen) {
		s.seen, s.changedAt = now, at
		return nil
	}
	if now.equal(s.loaded) || at.Sub(s.changedAt) < debounce {
		return nil // unchanged, changed back, or not still for long enough
	}
	changed := now.diff(s.loaded)
	s.loaded = now
	return changed
}

// reloading records that a reload of the files as they are now starts.
func (s *settling) reloading(now fileStates) { s.loaded, s.seen = now, now }

// reloadFailedMessage is logged when a reload fails. The set in force stays
// published: its tools stay listed, and a call is still refused when the
// binary behind its tool is no longer the one that was introspected.
const reloadFailedMessage = "reload failed; the previous tool set stays published"

// reload builds and publishes a new set, keeping the old one on failure.
func (w *Watcher) reload(ctx context.Context, log *slog.Logger) {
	set, err := w.Reload(ctx)
	if err != nil && ctx.Err() != nil {
		log.Info("reload abandoned: the server is stopping", "err", err)
		return
	}
	if err != nil {
		log.Error(reloadFailedMessage, "err", err,
			"calls", "a call to a tool whose binary changed since it was loaded is refused",
			"retry", "fix the app, then send SIGHUP or replace the binary again")
		return
	}
	for _, skip := range set.Skipped() {
		log.Warn("tool skipped on reload", "tool", skip.Name, "source", skip.Source, "reason", skip.Reason)
	}
	for _, warning := range set.Warnings() {
		log.Warn(warning)
	}
	w.Publish(set)
}

// fileState is one version of a file: its identity, or why it has none.
// States are comparable with ==.
type fileState struct {
	id      fileid.ID
	missing bool
	err     string
}

// fileStates maps each watched path to its state.
type fileStates map[string]fileState

// state reads the current state of every watched path.
func (w *Watcher) state() fileStates {
	s := make(fileStates, len(w.Paths))
	for _, p := range w.Paths {
		id, err := fileid.Stat(p)
		switch {
		case err == nil:
			s[p] = fileState{id: id}
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, exec.ErrNotFound):
			s[p] = fileState{missing: true}
		default:
			s[p] = fileState{err: err.Error()}
		}
	}
	return s
}

func (s fileStates) equal(o fileStates) bool {
	if len(s) != len(o) {
		return false
	}
	for p, st := range s {
		if ost, ok := o[p]; !ok || st != ost {
			return false
		}
	}
	return true
}

// diff lists the paths whose state differs from o.
func (s fileStates) diff(o fileStates) []string {
	var paths []string
	for p, st := range s {
		if ost, ok := o[p]; !ok || st != ost {
			paths = append(paths, p)
		}
	}
	return paths
}
