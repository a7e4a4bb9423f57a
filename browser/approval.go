package browser

import (
	"time"
)

// approval is the state of one local page. Its fields are guarded by the
// Local's mutex; done is closed when outcome is set.
type approval struct {
	req    Request
	ticket string // one-time, in the URL the opener gets
	cookie string // what the ticket is exchanged for
	csrf   string // embedded in the page, sent back with every POST

	exchanged time.Time // when the ticket was first used; zero before
	decision  Outcome   // the decision posted, perhaps still held
	outcome   Outcome   // how it ended; "" while pending
	done      chan struct{}

	streams int         // open event streams of the page
	grace   *time.Timer // counts down to Closed while no stream is open
}

// Secrets are 256 bits, as the ticket must be.
const secretBytes = 32

func newApproval(r Request) *approval {
	return &approval{req: r, ticket: secret(secretBytes), cookie: secret(secretBytes), csrf: secret(secretBytes), done: make(chan struct{})}
}

// finish sets a's outcome unless it has one. l.mu is held.
func (l *Local) finish(a *approval, o Outcome) bool {
	if a.outcome != "" {
		return false
	}
	a.outcome = o
	if a.grace != nil {
		a.grace.Stop()
	}
	close(a.done)
	return true
}

// ticketUse is what presenting a ticket did.
type ticketUse int

const (
	ticketWrong     ticketUse = iota // not a's ticket: nothing changes
	ticketExchanged                  // the first use: the cookie is given
	ticketReused                     // a second use: the approval is cancelled
	ticketEnded                      // a's ticket, but a has ended already
)

// useTicket judges a presented ticket.
func (l *Local) useTicket(a *approval, t string) ticketUse {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case !equal(t, a.ticket):
		return ticketWrong
	case a.outcome != "":
		return ticketEnded
	case a.exchanged.IsZero():
		a.exchanged = l.now()
		return ticketExchanged
	}
	l.finish(a, Reused)
	return ticketReused
}

// decided is what posting a decision did.
type decided int

const (
	decisionTaken   decided = iota // it took effect, or is held (wait > 0)
	decisionTooLate                // a had ended or had a decision already
)

// decide records the person's decision. A Deny takes effect at once
// (refusing is always safe). An Approve within the hold of the ticket
// exchange is held until the hold has passed; wait says for how long,
// and a second use of the ticket meanwhile makes the outcome Reused.
func (l *Local) decide(a *approval, o Outcome) (d decided, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a.outcome != "" || a.decision != "" {
		return decisionTooLate, 0
	}
	a.decision = o
	if o == Approved {
		wait = a.exchanged.Add(l.hold).Sub(l.now())
	}
	if wait <= 0 {
		l.finish(a, o)
		return decisionTaken, 0
	}
	if l.onHold != nil {
		l.onHold()
	}
	time.AfterFunc(wait, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.finish(a, a.decision)
	})
	return decisionTaken, wait
}

// streamOpened counts an event stream of a's page.
func (l *Local) streamOpened(a *approval) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a.streams++
	if a.grace != nil {
		a.grace.Stop()
		a.grace = nil
	}
}

// streamClosed uncounts a stream; when none is left, pageGone.
func (l *Local) streamClosed(a *approval) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a.streams--
	if a.streams == 0 {
		l.pageGoneLocked(a)
	}
}

// pageGone is the page's pagehide beacon: the page may be gone.
func (l *Local) pageGone(a *approval) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pageGoneLocked(a)
}

// pageGoneLocked starts (or restarts) the grace after which a page
// without an event stream counts as closed, unless the person has
// decided already (a form submission unloads the page too).
func (l *Local) pageGoneLocked(a *approval) {
	if a.outcome != "" || a.decision != "" {
		return
	}
	if a.grace != nil {
		a.grace.Stop()
	}
	var t *time.Timer
	t = time.AfterFunc(l.grace, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if a.grace == t && a.streams == 0 && a.decision == "" {
			l.finish(a, Closed)
		}
	})
	a.grace = t
}

// state reads a's outcome and whether it is still pending.
func (l *Local) state(a *approval) Outcome {
	l.mu.Lock()
	defer l.mu.Unlock()
	return a.outcome
}

// lookup returns the approval id of s, pending or ended.
func (l *Local) lookup(s *site, id string) *approval {
	l.mu.Lock()
	defer l.mu.Unlock()
	return s.approvals[id]
}
