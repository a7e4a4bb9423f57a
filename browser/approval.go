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

	grant   string    // the list cookie its ticket's exchange gave; "" before
	via     *approval // whose list cookie opened its page; nil for its own ticket
	openErr error     // the opener's failure, when launched by another call
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

// useTicket judges a presented ticket. Its first use also gives the list
// cookie (a.grant), which opens the list of what is pending.
func (l *Local) useTicket(s *site, a *approval, t string) ticketUse {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case !equal(t, a.ticket):
		return ticketWrong
	case a.outcome != "":
		return ticketEnded
	case a.exchanged.IsZero():
		a.exchanged = l.now()
		a.grant = secret(secretBytes)
		s.grants[a.grant] = a
		return ticketExchanged
	}
	l.reusedLocked(s, a)
	return ticketReused
}

// openFromList is opening a's page from the list, which the list cookie
// of approval g opened: the same as the first use of a's ticket, and a
// second opening is a second use.
func (l *Local) openFromList(s *site, g, a *approval) ticketUse {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case s.grants[g.grant] != g:
		return ticketWrong // revoked meanwhile
	case a.outcome != "":
		return ticketEnded
	case a.exchanged.IsZero():
		a.exchanged, a.via = l.now(), g
		return ticketExchanged
	}
	l.reusedLocked(s, a)
	return ticketReused
}

// reusedLocked cancels a, whose ticket was used twice, and with it what
// the list cookie its first use gave opened: whoever was first may hold
// that cookie, and the person's browser, told a was reused, gets none to
// reach them. l.mu is held.
func (l *Local) reusedLocked(s *site, a *approval) {
	l.finish(a, Reused)
	if a.grant != "" {
		delete(s.grants, a.grant)
	}
	for _, b := range s.order {
		if b.via == a {
			l.finish(b, Reused)
		}
	}
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
func (l *Local) streamOpened(s *site, a *approval) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a.streams++
	s.streams++
	if a.grace != nil {
		a.grace.Stop()
		a.grace = nil
	}
}

// streamClosed uncounts a stream; when none is left, pageGone.
func (l *Local) streamClosed(s *site, a *approval) {
	l.mu.Lock()
	a.streams--
	if a.streams == 0 {
		l.pageGoneLocked(a)
	}
	l.mu.Unlock()
	l.siteStreamClosed(s)
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
