package browser

import (
	"context"
	"time"
)

// A flood of approvals must not become a flood of browser tabs: the
// opener is launched at most once an openEvery, and not at all while a
// page of the listener is open in the person's browser (its event stream
// connected), which announces what comes instead. The list at / shows
// every approval pending.

// showLocked reports whether the opener may be launched now for a new
// approval of s, and counts the launch. When only the time since the last
// launch forbids it, a launch is put off until it allows. l.mu is held.
func (l *Local) showLocked(s *site) bool {
	if s.streams > 0 {
		return false
	}
	now := l.now()
	next := l.opened.Add(l.openEvery)
	if l.openEvery <= 0 || l.opened.IsZero() || !now.Before(next) {
		l.opened = now
		return true
	}
	l.launchSoonLocked(s, next.Sub(now))
	return false
}

// launchSoonLocked puts off a launch of the opener for s by wait, unless
// one is put off already. l.mu is held.
func (l *Local) launchSoonLocked(s *site, wait time.Duration) {
	if s.timer == nil {
		s.timer = time.AfterFunc(wait, func() { l.launchLater(s) })
	}
}

// launchLater is a launch put off: of the page of the oldest approval
// nobody opened, unless a page of s has been opened meanwhile.
func (l *Local) launchLater(s *site) {
	l.mu.Lock()
	s.timer = nil
	var a *approval
	if l.site == s && s.streams == 0 {
		a = s.unopenedLocked()
	}
	if a != nil {
		l.opened = l.now()
	}
	l.mu.Unlock()
	if a == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	if !a.req.Deadline.IsZero() {
		ctx, cancel = context.WithTimeout(context.Background(), a.req.Deadline.Sub(l.now()))
	}
	defer cancel()
	go func() {
		select {
		case <-a.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := l.open(ctx, s.pageURL(a))
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil && a.outcome == "" {
		// Its call fails with this error, as if it had launched the opener.
		a.openErr = err
		l.finish(a, Cancelled)
		l.log.Warn("the approval page could not be opened in the browser", "approval", a.req.ID, "tool", a.req.Tool, "err", err)
		return
	}
	l.log.Info("approval shown in the browser", "approval", a.req.ID, "tool", a.req.Tool)
}

// openFailure is the error of the opener launched for a by another call.
func (l *Local) openFailure(a *approval) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return a.openErr
}

// unopenedLocked is the oldest approval of s pending whose page nobody
// opened, or nil. l.mu is held.
func (s *site) unopenedLocked() *approval {
	for _, a := range s.order {
		if a.outcome == "" && a.exchanged.IsZero() {
			return a
		}
	}
	return nil
}

// changedLocked tells the event streams of s that an approval came or
// ended. l.mu is held.
func (s *site) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// siteStreamOpened counts an event stream of a page of s.
func (l *Local) siteStreamOpened(s *site) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s.streams++
}

// siteStreamClosed uncounts one; with none left while approvals nobody
// opened are pending, the opener is launched for them once the page has
// had its grace to come back (a reload) and openEvery allows.
func (l *Local) siteStreamClosed(s *site) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s.streams--
	if s.streams == 0 && s.unopenedLocked() != nil {
		l.launchSoonLocked(s, max(l.grace, l.opened.Add(l.openEvery).Sub(l.now())))
	}
}

// pendingLocked lists the approvals of s still pending, oldest first.
// l.mu is held.
func (s *site) pendingLocked() []*approval {
	var ps []*approval
	for _, a := range s.order {
		if a.outcome == "" {
			ps = append(ps, a)
		}
	}
	return ps
}
