package server

import (
	"sync"
	"time"
)

// A server's start-up ends once, and what must not compete with it for
// the CPUs waits for that: the client launching the server waits for the
// first tools/list, and nothing else. Over stdio the start-up ends
// startupSettle after the first tools/list is written in full (the client
// is still reading it, on the same CPUs), or startupWindow after serving
// began for a client that does not list; over HTTP it ends when serving
// begins, since a shared server's first list is one client's among many.
//
// Then the server readies the set in force for the calls and searches to
// come (see readySet), and whoever else waits on [Server.StartupOver] (the
// command turns garbage collection back on) goes on.
const (
	startupSettle = time.Second
	startupWindow = 5 * time.Second
)

// startup is the one "start-up is over" event of a server.
type startup struct {
	over chan struct{}
	// end readies the set and then closes over, the first time only. It
	// runs on a goroutine of its own, never on the path of a request.
	end func()
	// settle and window are startupSettle and startupWindow; tests
	// shorten them.
	settle, window time.Duration
}

func (st *startup) init(ready func()) {
	st.over = make(chan struct{})
	st.settle, st.window = startupSettle, startupWindow
	st.end = sync.OnceFunc(func() {
		ready()
		close(st.over)
	})
}

// StartupOver is closed once the server's start-up is over (see
// startup.go: a little after the first tools/list over stdio, when
// serving begins over HTTP) and the server has readied its tool set for
// the calls to come.
func (s *Server) StartupOver() <-chan struct{} { return s.startup.over }

// stdioTimers ends the start-up settle after listed is first called, or
// window from now, whichever comes first. stop cancels
// both, for a session that ends sooner: its server is not prepared for
// calls that will not come.
func (st *startup) stdioTimers() (listed func(), stop func()) {
	var mu sync.Mutex
	stopped := false
	var timers []*time.Timer
	after := func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			timers = append(timers, time.AfterFunc(d, st.end))
		}
	}
	after(st.window)
	return sync.OnceFunc(func() { after(st.settle) }), func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		for _, t := range timers {
			t.Stop()
		}
	}
}

// readySet readies the set in force for the calls and searches to come,
// so that none waits for what it needs: it hashes the content of the
// set's binaries, which bindings hold (see exposure.ToolSet.HashBinaries),
// and, when the set is deferred, builds its search index before the
// model's first search_tools (a set listed in full is rarely searched, and
// builds its index on first use). A call that comes first takes what it
// needs itself. BenchmarkStartup's content-hash and the catalog's
// benchmarks measure what each costs.
func (s *Server) readySet() {
	set := s.tools.Load()
	start := time.Now()
	if n := set.HashBinaries(); n > 0 {
		s.log.Debug("the binaries' content is hashed for the tools' bindings", "binaries", n, "took", time.Since(start))
	}
	if l := s.listing.Load(); l != nil && l.deferred {
		s.discovery.Index(set)
	}
}
