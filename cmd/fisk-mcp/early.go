package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fisk-mcp/fisk-mcp/fileid"
	"github.com/fisk-mcp/fisk-mcp/internal/listcache"
	"github.com/fisk-mcp/fisk-mcp/server"
)

// earlyList is a stdio start's use of the lists earlier starts kept (see
// listcache and server.NewEarly): once every app has printed its
// document, the start's key is known, and decided receives the list kept
// under it, or nil. After the start, a list that was not kept, or not
// kept as the set lists it, is saved.
type earlyList struct {
	store listcache.Store
	base  *listcache.Keyer
	now   time.Time

	mu      sync.Mutex
	docs    [][32]byte
	have    []bool
	missing int
	key     listcache.Key
	decided chan *server.Early // buffered; receives once

	save  atomic.Bool // the start's own list is to be kept
	saved bool        // under mu: it was

	// held holds the set's build after a list was found, until release
	// closes it or ctx, the load's, ends.
	ctx         context.Context
	held        chan struct{}
	releaseOnce sync.Once
	why         string // what ended the hold, set before held is closed
	log         *slog.Logger
}

// earlyListDir is where lists are kept: fisk-mcp/lists under the user's
// cache directory, or nowhere when there is none.
func earlyListDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "fisk-mcp", "lists")
}

// newEarlyList returns the early list of a stdio start of p, or nil when
// there can be none: no cache directory, or a part of the start's inputs
// that cannot be read.
//
// The key holds everything the first list is made of besides the
// documents: this fisk-mcp (its version and the identity of its
// executable, which a rebuild changes), the command line, the working
// directory (relative paths), the whole environment (settings, PATH) and
// the configuration file's content. It is deliberately all of them rather
// than the settings they make: a start that differs in anything at all
// builds its list, as it would without a cache.
func newEarlyList(ctx context.Context, p *plan, dir string, log *slog.Logger) *earlyList {
	if dir == "" {
		return nil
	}
	k := listcache.NewKeyer()
	k.AddString("version", buildVersion())
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	id, err := fileid.Stat(exe)
	if err != nil {
		return nil
	}
	k.AddString("executable", exe+"\x00"+id.String())
	k.AddString("args", strings.Join(os.Args[1:], "\x00"))
	cwd, err := os.Getwd()
	if err != nil {
		return nil
	}
	k.AddString("cwd", cwd)
	k.AddString("env", strings.Join(slices.Sorted(slices.Values(os.Environ())), "\x00"))
	if p.configFile != "" {
		// The content the settings came from: reading the file again
		// could give other bytes (a pipe, as --config <(...) passes, is
		// empty by then; a file edited meanwhile), and key the list by a
		// configuration it was not made from.
		k.Add("config", p.configRaw)
	}
	n := len(p.Apps)
	return &earlyList{
		store: listcache.Store{Dir: dir}, base: k, now: time.Now(),
		docs: make([][32]byte, n), have: make([]bool, n), missing: n,
		decided: make(chan *server.Early, 1),
		ctx:     ctx, held: make(chan struct{}), log: log,
	}
}

// document records the document app printed (exposure.LoadOptions'
// Document); the last app's completes the key and decides. An app
// introspected again (its binary changed meanwhile) after the decision
// changes nothing: the set is built from its second document, and
// Complete finds the lists differ.
func (e *earlyList) document(app int, doc []byte) {
	sum := listcache.Document(doc, e.now)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.missing == 0 {
		return
	}
	e.docs[app] = sum
	if !e.have[app] {
		e.have[app] = true
		e.missing--
	}
	if e.missing > 0 {
		return
	}
	k := e.base.Clone()
	for _, d := range e.docs {
		k.Add("document", d[:])
	}
	e.key = k.Sum()
	kept := e.store.Load(e.key)
	e.save.Store(kept == nil)
	e.decided <- kept
	if kept == nil {
		return
	}
	// The set is built once the client has its list: building it beside
	// the writing and the client's reading of the list takes the CPUs the
	// client waits for. That is a little after the list is written (see
	// startupSettle), or at once when a call, which waits for the set,
	// arrives; a client that neither lists nor calls has it built after
	// holdLimit.
	e.mu.Unlock()
	defer e.mu.Lock()
	timer := time.NewTimer(holdLimit)
	defer timer.Stop()
	select {
	case <-e.held:
		e.log.Debug("building the tool set behind the kept list", "because", e.why)
	case <-e.ctx.Done():
	case <-timer.C:
		e.log.Debug("building the tool set behind the kept list", "because", "no list or call came within "+holdLimit.String())
	}
}

// holdLimit bounds the wait of the set's build for the first list or
// call (see document).
const holdLimit = startupGCWindow

// release ends the hold on the set's build, saying why; only the first
// call counts.
func (e *earlyList) release(why string) {
	if e != nil {
		e.releaseOnce.Do(func() {
			e.why = why
			close(e.held)
		})
	}
}

// releaseForCall is release for a call that waits for the set.
func (e *earlyList) releaseForCall() { e.release("a call waits for it") }

// keep saves srv's list, when the start's own list is to be kept and was
// not yet, and srv has its set.
func (e *earlyList) keep(srv *server.Server) error {
	if e == nil || !e.save.Load() {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.saved || e.missing > 0 {
		return nil
	}
	list := srv.Early()
	if list == nil {
		return nil
	}
	e.saved = true
	return e.store.Save(e.key, list)
}
