package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/internal/ident"
)

// DefaultHold is how long after the ticket exchange an Approve waits for a
// second use of the ticket before it takes effect (see the package doc).
const DefaultHold = 1500 * time.Millisecond

// defaultGrace is how long a page may be without its event stream (a
// reload reconnects within it) before the approval counts as Closed.
const defaultGrace = 2 * time.Second

// DefaultOpenEvery is the least time between two launches of the opener:
// approvals asked meanwhile are announced on the pages already open, or
// shown by one launch once the time has passed.
const DefaultOpenEvery = 10 * time.Second

// ErrLocalClosed is returned by Ask after Close.
var ErrLocalClosed = errors.New("the browser approval page is shut down")

// LocalOptions configures a [Local]. The zero value is usable.
type LocalOptions struct {
	// Open opens the page's URL in the person's browser. nil means
	// DefaultOpener(). It is cancelled with the call.
	Open func(ctx context.Context, url string) error
	// Logger receives one Info line when an approval is shown and one when
	// it ends. nil means slog.Default().
	Logger *slog.Logger
	// Hold is how long an Approve posted right after the ticket exchange
	// waits for a second use of the ticket; 0 means DefaultHold.
	Hold time.Duration
	// Now is the clock for deadlines, time left and the hold; nil means
	// time.Now.
	Now func() time.Time
	// PendingPerClient and PendingTotal bound the approvals waiting, for
	// one client (Request.Caller) and in all; an Ask over either is
	// refused at once with *elicit.TooManyWaiting. 0 means
	// DefaultPendingPerClient and DefaultPendingTotal.
	PendingPerClient, PendingTotal int
}

// Local asks on the person's own machine: a page on a loopback listener,
// opened in their browser. The listener is open only while an approval is
// pending. Local is safe for concurrent use; each Ask is one page.
type Local struct {
	open  func(ctx context.Context, url string) error
	log   *slog.Logger
	hold  time.Duration
	now   func() time.Time
	grace time.Duration // tests shorten it
	tick  time.Duration // how often the event stream sends the time left
	// openEvery is the least time between launches of the opener; tests
	// set 0, no limit.
	openEvery time.Duration
	// onHold, when set (by tests), is called as an Approve is held.
	onHold func()

	waiting waiting

	mu       sync.Mutex
	site     *site     // nil while nothing is pending
	opened   time.Time // the opener's last launch
	shutdown bool
	closing  sync.WaitGroup // listeners still shutting down
}

// NewLocal returns a Local with o's settings.
func NewLocal(o LocalOptions) *Local {
	l := &Local{open: o.Open, log: o.Logger, hold: o.Hold, now: o.Now, grace: defaultGrace, tick: time.Second, openEvery: DefaultOpenEvery,
		waiting: waiting{perClient: o.PendingPerClient, total: o.PendingTotal}}
	if l.open == nil {
		l.open = DefaultOpener()
	}
	if l.log == nil {
		l.log = slog.Default()
	}
	if l.hold <= 0 {
		l.hold = DefaultHold
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l
}

// Approver names who approves on the local page, for the call log
// ([elicit.ApproverNamer]).
func (*Local) Approver() string { return "local user" }

// maxID is the longest ID an approval may have: IDs name a page path and a
// cookie path without escaping (the gate's nonces are hex).
const maxID = 128

// Ask shows r on a page of its own and blocks until the person decides,
// the page is closed or its ticket reused, r.Deadline passes (TimedOut) or
// ctx ends (Cancelled). An error means the page could not be shown, or
// (*elicit.TooManyWaiting) that as many approvals as the bounds allow are
// waiting already.
//
// The opener is launched for r's page unless a page of the listener is
// open in the person's browser (it announces r, and lists it at /), or
// it was launched less than DefaultOpenEvery ago (it is launched again
// then, for the oldest approval nobody opened, if no page is open by
// that time).
func (l *Local) Ask(ctx context.Context, r Request) (Outcome, error) {
	if !ident.Valid(r.ID, maxID) {
		return "", fmt.Errorf("approval ID %.64q: want 1 to 128 letters, digits, '-' or '_'", r.ID)
	}
	if !r.Deadline.IsZero() && !l.now().Before(r.Deadline) {
		return TimedOut, nil
	}
	if err := l.waiting.take(r.Caller); err != nil {
		return "", err
	}
	defer l.waiting.release(r.Caller)
	s, a, launch, err := l.register(r)
	if err != nil {
		return "", err
	}
	// One reading of the clock for the whole wait.
	var deadline <-chan time.Time
	openCtx := ctx
	if !r.Deadline.IsZero() {
		left := r.Deadline.Sub(l.now())
		t := time.NewTimer(left)
		defer t.Stop()
		deadline = t.C
		var cancel context.CancelFunc
		openCtx, cancel = context.WithTimeout(ctx, left)
		defer cancel()
	}
	if launch {
		if err := l.open(openCtx, s.pageURL(a)); err != nil {
			// An opener stopped by the call's end or deadline did not fail.
			switch {
			case ctx.Err() != nil:
				return l.end(s, a, Cancelled), nil
			case openCtx.Err() != nil:
				return l.end(s, a, TimedOut), nil
			}
			l.end(s, a, Cancelled)
			l.log.Warn("the approval page could not be opened in the browser", "approval", r.ID, "tool", r.Tool, "err", err)
			return "", fmt.Errorf("%w: showing the approval of %s: %w", elicit.ErrNotShown, r.Tool, err)
		}
		l.log.Info("approval shown in the browser", "approval", r.ID, "tool", r.Tool)
	} else {
		l.log.Info("approval announced on the approval pages open in the browser", "approval", r.ID, "tool", r.Tool)
	}
	select {
	case <-a.done:
	case <-deadline:
	case <-ctx.Done():
	}
	o := TimedOut
	if ctx.Err() != nil {
		o = Cancelled
	}
	o = l.end(s, a, o)
	if err := l.openFailure(a); err != nil {
		return "", fmt.Errorf("%w: showing the approval of %s: %w", elicit.ErrNotShown, r.Tool, err)
	}
	l.log.Info("approval in the browser ended", "approval", r.ID, "tool", r.Tool, "outcome", string(o))
	return o, nil
}

// register adds a's page to the site, opening the listener if it is the
// first pending approval; launch says to launch the opener for it.
func (l *Local) register(r Request) (s *site, a *approval, launch bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shutdown {
		return nil, nil, false, ErrLocalClosed
	}
	if l.site == nil {
		s, err := l.listen()
		if err != nil {
			return nil, nil, false, err
		}
		l.site = s
	}
	s = l.site
	if _, ok := s.approvals[r.ID]; ok {
		return nil, nil, false, fmt.Errorf("approval %q is already shown; each approval needs a new ID", r.ID)
	}
	a = newApproval(r)
	s.approvals[r.ID] = a
	s.order = append(s.order, a)
	s.pending++
	s.changedLocked()
	return s, a, l.showLocked(s), nil
}

// end gives a its outcome unless it has one (the first wins) and returns
// the outcome it has; the last pending approval of a site closes its
// listener before end returns.
func (l *Local) end(s *site, a *approval, o Outcome) Outcome {
	l.mu.Lock()
	l.finish(a, o)
	o = a.outcome
	s.pending--
	s.changedLocked()
	last := s.pending == 0 && l.site == s
	if last {
		l.site = nil
		l.closing.Add(1)
		if s.timer != nil {
			s.timer.Stop()
		}
	}
	l.mu.Unlock()
	if last {
		s.close(&l.closing)
	}
	return o
}

// Close ends every pending approval as Cancelled, closes the listener and
// waits for it to shut down. Ask fails with ErrLocalClosed afterwards.
func (l *Local) Close() error {
	l.mu.Lock()
	l.shutdown = true
	if s := l.site; s != nil {
		for _, a := range s.approvals {
			l.finish(a, Cancelled)
		}
	}
	s := l.site
	l.mu.Unlock()
	// Each Ask wakes on its approval's end; the last closes the listener.
	if s != nil {
		<-s.empty
	}
	l.closing.Wait()
	return nil
}

// site is one life of the loopback listener: from the first pending
// approval to the last. Finished approvals stay so that their pages can
// say how they ended, until the listener closes.
type site struct {
	ln        net.Listener
	srv       *http.Server
	addr      string // 127.0.0.1:PORT, the only Host accepted
	origin    string // http://127.0.0.1:PORT
	approvals map[string]*approval
	order     []*approval // the approvals, oldest first
	pending   int
	empty     chan struct{} // closed when the listener closes

	grants  map[string]*approval // list cookies, by value: the approval whose ticket gave each
	streams int                  // event streams open on any page of the site
	changed chan struct{}        // closed, and replaced, when an approval comes or ends
	timer   *time.Timer          // a launch of the opener put off by openEvery
}

// maxLocalHeader bounds the header of a request to the loopback listener,
// which any process of the machine can reach before it proves anything: a
// browser's requests for the page carry a few KiB, with the cookies other
// servers on 127.0.0.1 set (cookies do not tell ports apart).
const maxLocalHeader = 64 << 10

func (l *Local) listen() (*site, error) {
	if !canTellPeers {
		return nil, fmt.Errorf("the approval page cannot be shown here: %w, so another user could approve; use --approval elicit, or serve over --http with the shared /approvals page", errNoPeerCheck)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("opening the loopback listener for the approval page: %w; check that 127.0.0.1 is available, or use --approval elicit", err)
	}
	s := &site{ln: ln, addr: ln.Addr().String(), approvals: map[string]*approval{}, empty: make(chan struct{}),
		grants: map[string]*approval{}, changed: make(chan struct{})}
	s.origin = "http://" + s.addr
	s.srv = &http.Server{Handler: secured(l.ownUser(l.routes(s))), ConnContext: peerContext,
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		MaxHeaderBytes: maxLocalHeader, ErrorLog: slog.NewLogLogger(l.log.Handler(), slog.LevelDebug)}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *site) pageURL(a *approval) string {
	return s.origin + "/a/" + a.req.ID + "?t=" + a.ticket
}

// close stops accepting at once, then lets the responses in flight (a
// decision's page, an event stream announcing the outcome) finish, for
// at most a few seconds, in the background.
func (s *site) close(wg *sync.WaitGroup) {
	s.ln.Close()
	close(s.empty)
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if s.srv.Shutdown(ctx) != nil {
			s.srv.Close()
		}
	}()
}
