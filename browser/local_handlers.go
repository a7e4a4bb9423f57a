package browser

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// cookieName is the local page's cookie; its Path is the approval's page,
// so the pages of two approvals never see each other's.
const cookieName = "fisk_approval"

// The local page's paths, under /a/{id}:
//
//	GET  /a/{id}?t=TICKET  exchange the ticket for the cookie (and the list
//	                       cookie), 303 to /a/{id}
//	GET  /a/{id}           the page (cookie)
//	GET  /a/{id}/events    event stream: "left" (seconds), "others" (how
//	                       many other approvals are pending), "outcome" (cookie)
//	POST /a/{id}/decide    csrf, decision=approve|deny (cookie, same origin)
//	POST /a/{id}/closed    csrf: the pagehide beacon (cookie, same origin)
//
// and the list of what is pending (list cookie, see local_list.go):
//
//	GET  /                 the list
//	GET  /events           event stream: "pending" (how many)
//	POST /a/{id}/open      csrf: open the page of an approval nobody opened
func (l *Local) routes(s *site) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { l.home(s, w, r) })
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) { l.homeEvents(s, w, r) })
	mux.HandleFunc("POST /a/{id}/open", func(w http.ResponseWriter, r *http.Request) { l.openHandler(s, w, r) })
	mux.HandleFunc("GET /a/{id}", func(w http.ResponseWriter, r *http.Request) { l.page(s, w, r) })
	mux.HandleFunc("GET /a/{id}/events", func(w http.ResponseWriter, r *http.Request) { l.events(s, w, r) })
	mux.HandleFunc("POST /a/{id}/decide", func(w http.ResponseWriter, r *http.Request) { l.decideHandler(s, w, r) })
	mux.HandleFunc("POST /a/{id}/closed", func(w http.ResponseWriter, r *http.Request) { l.closedHandler(s, w, r) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		message(w, r, l.log, http.StatusNotFound, "Not found", "There is no such page here.", "", "")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A page of another name resolving to 127.0.0.1 (DNS rebinding)
		// is another origin: it gets nothing.
		if r.Host != s.addr {
			message(w, r, l.log, http.StatusForbidden, "Wrong address", "Open the approval page at the address fisk-mcp opened.", "", "")
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// approvalOf finds the approval of the request's path, answering 404 when
// there is none.
func (l *Local) approvalOf(s *site, w http.ResponseWriter, r *http.Request) *approval {
	a := l.lookup(s, r.PathValue("id"))
	if a == nil {
		message(w, r, l.log, http.StatusNotFound, "No such approval", "This approval is not (or no longer) shown here.", "", "")
	}
	return a
}

// hasCookie reports whether r carries a's cookie, answering 403 when not.
func (l *Local) hasCookie(a *approval, w http.ResponseWriter, r *http.Request) bool {
	c, err := r.Cookie(cookieName)
	if err == nil && equal(c.Value, a.cookie) {
		return true
	}
	message(w, r, l.log, http.StatusForbidden, "Not this browser", "This approval page opens only in the browser window fisk-mcp opened it in.", "", "")
	return false
}

func (l *Local) page(s *site, w http.ResponseWriter, r *http.Request) {
	a := l.approvalOf(s, w, r)
	if a == nil {
		return
	}
	if q := r.URL.Query(); q.Has("t") {
		l.ticket(s, a, q.Get("t"), w, r)
		return
	}
	if !l.hasCookie(a, w, r) {
		return
	}
	o, it := l.state(a), newItem(a.req, l.now(), false)
	render(w, r, l.log, http.StatusOK, "local", view{
		Title: "Approve " + it.Req.Tool + "?", Script: countdown + arming + localScript,
		Action: "/a/" + a.req.ID + "/decide", CSRF: a.csrf, Pending: o == "", Outcome: o,
		Item: it,
	})
}

// ticket exchanges the one-time ticket for the cookie and sends the
// browser on to the page's address without it, out of the address bar
// and the history.
func (l *Local) ticket(s *site, a *approval, t string, w http.ResponseWriter, r *http.Request) {
	switch l.useTicket(s, a, t) {
	case ticketWrong:
		message(w, r, l.log, http.StatusForbidden, "Invalid link", "This approval link is not valid.", "", "")
	case ticketEnded:
		o := l.state(a)
		message(w, r, l.log, http.StatusConflict, "Approval ended", outcomeText[o], o, "")
	case ticketReused:
		l.log.Warn("the approval page's one-time link was used twice; approval cancelled", "approval", a.req.ID, "tool", a.req.Tool)
		message(w, r, l.log, http.StatusConflict, "Approval cancelled", outcomeText[Reused], Reused, "")
	case ticketExchanged:
		l.mu.Lock()
		grant := a.grant
		l.mu.Unlock()
		l.giveCookie(w, a)
		http.SetCookie(w, &http.Cookie{Name: listCookie, Value: grant, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/a/"+a.req.ID, http.StatusSeeOther)
	}
}

// giveCookie gives the browser a's cookie.
func (l *Local) giveCookie(w http.ResponseWriter, a *approval) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: a.cookie, Path: "/a/" + a.req.ID, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// posted checks a POST of a's page: same origin, cookie, CSRF token.
func (l *Local) posted(s *site, a *approval, w http.ResponseWriter, r *http.Request) bool {
	if !sameOrigin(r, s.origin) {
		message(w, r, l.log, http.StatusForbidden, "Refused", "This request did not come from the approval page.", "", "")
		return false
	}
	if !l.hasCookie(a, w, r) {
		return false
	}
	if !form(w, r) || !equal(r.PostForm.Get("csrf"), a.csrf) {
		message(w, r, l.log, http.StatusForbidden, "Refused", "This request did not come from the approval page.", "", "")
		return false
	}
	return true
}

func (l *Local) decideHandler(s *site, w http.ResponseWriter, r *http.Request) {
	a := l.approvalOf(s, w, r)
	if a == nil || !l.posted(s, a, w, r) {
		return
	}
	o, ok := decisionOf(r)
	if !ok {
		message(w, r, l.log, http.StatusBadRequest, "Refused", "Choose Approve or Deny.", "", "")
		return
	}
	status := http.StatusOK
	d, wait := l.decide(a, o)
	if d == decisionTooLate {
		status = http.StatusConflict
	}
	if wait > 0 || l.state(a) == "" {
		// Held (see DefaultHold), by this or an earlier post: answer once
		// it has taken effect or been cancelled by a second use of the
		// ticket.
		select {
		case <-a.done:
		case <-r.Context().Done():
			return
		}
	}
	o = l.state(a)
	it := newItem(a.req, l.now(), false)
	render(w, r, l.log, status, "local", view{
		Title: "Approval of " + it.Req.Tool, Action: "/a/" + a.req.ID + "/decide", CSRF: a.csrf,
		Pending: o == "", Outcome: o, Item: it,
	})
}

func (l *Local) closedHandler(s *site, w http.ResponseWriter, r *http.Request) {
	a := l.approvalOf(s, w, r)
	if a == nil || !l.posted(s, a, w, r) {
		return
	}
	l.pageGone(a)
	w.WriteHeader(http.StatusNoContent)
}

// events streams the time left to a's page until a ends, then its
// outcome. Its loss, without a new stream within the grace, refuses.
func (l *Local) events(s *site, w http.ResponseWriter, r *http.Request) {
	a := l.approvalOf(s, w, r)
	if a == nil || !l.hasCookie(a, w, r) {
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	l.streamOpened(s, a)
	defer l.streamClosed(s, a)
	t := time.NewTicker(l.tick)
	defer t.Stop()
	others := -1
	for {
		if o := l.state(a); o != "" {
			b, _ := json.Marshal(map[string]string{"outcome": string(o), "text": outcomeText[o]})
			fmt.Fprintf(w, "event: outcome\ndata: %s\n\n", b)
			rc.Flush()
			return
		}
		l.mu.Lock()
		n, changed := s.pending-1, s.changed
		l.mu.Unlock()
		fmt.Fprintf(w, "event: left\ndata: %d\n\n", secondsLeft(a.req.Deadline, l.now()))
		if n != others {
			others = n
			fmt.Fprintf(w, "event: others\ndata: %d\n\n", n)
		}
		if rc.Flush() != nil {
			return
		}
		select {
		case <-a.done:
		case <-changed:
		case <-t.C:
		case <-r.Context().Done():
			return
		}
	}
}
