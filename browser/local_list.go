package browser

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// listCookie is the list's cookie (Path /): every exchange of a ticket
// gives one, and it opens the list of the approvals pending (/) and, from
// there, the page of one nobody opened yet, as that one's ticket would.
// The page of an approval is still decided only with its own cookie and
// CSRF token, and its Approve is held as after a ticket's exchange.
const listCookie = "fisk_approvals"

// homeScript reloads the list when an approval comes or ends, as its
// event stream says; the stream also keeps the opener from opening more
// pages while the list is open.
const homeScript = `
(function(){
var n=document.getElementById("count").getAttribute("data-pending");
var es=new EventSource("/events");
es.addEventListener("pending",function(e){if(e.data!==n){es.close();location.reload();}});
})();
`

// grantOf is the approval whose ticket gave r's list cookie, or nil,
// answering 403 when there is none.
func (l *Local) grantOf(s *site, w http.ResponseWriter, r *http.Request) *approval {
	var g *approval
	if c, err := r.Cookie(listCookie); err == nil {
		l.mu.Lock()
		g = s.grants[c.Value]
		l.mu.Unlock()
	}
	if g == nil {
		message(w, r, l.log, http.StatusForbidden, "Not this browser", "The list of pending approvals opens only in the browser window fisk-mcp opened an approval page in.", "", "")
	}
	return g
}

// home lists the approvals pending, oldest first, at most ListPage.
func (l *Local) home(s *site, w http.ResponseWriter, r *http.Request) {
	g := l.grantOf(s, w, r)
	if g == nil {
		return
	}
	now := l.now()
	l.mu.Lock()
	ps := s.pendingLocked()
	items := make([]item, 0, min(len(ps), ListPage))
	for _, a := range ps[:min(len(ps), ListPage)] {
		it := newItem(a.req, now, true)
		it.Opened = !a.exchanged.IsZero()
		items = append(items, it)
	}
	l.mu.Unlock()
	render(w, r, l.log, http.StatusOK, "home", view{Title: "Pending approvals", Script: countdown + homeScript, CSRF: g.csrf, Items: items,
		Pages: &pages{Total: len(ps), Page: 1, Last: 1, Size: ListPage}})
}

// homeEvents streams how many approvals are pending, again whenever it
// changes.
func (l *Local) homeEvents(s *site, w http.ResponseWriter, r *http.Request) {
	if l.grantOf(s, w, r) == nil {
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	l.siteStreamOpened(s)
	defer l.siteStreamClosed(s)
	// A stream that outlives the listener's shutdown ends with it.
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		l.mu.Lock()
		n, changed := len(s.pendingLocked()), s.changed
		l.mu.Unlock()
		fmt.Fprintf(w, "event: pending\ndata: %s\n\n", strconv.Itoa(n))
		if rc.Flush() != nil {
			return
		}
		select {
		case <-changed:
		case <-t.C:
		case <-s.empty:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// openHandler opens, from the list, the page of an approval nobody opened
// yet: it gives the approval's cookie and sends the browser to its page.
func (l *Local) openHandler(s *site, w http.ResponseWriter, r *http.Request) {
	a := l.approvalOf(s, w, r)
	if a == nil {
		return
	}
	g := l.grantOf(s, w, r)
	if g == nil {
		return
	}
	if !sameOrigin(r, s.origin) || !form(w, r) || !equal(r.PostForm.Get("csrf"), g.csrf) {
		message(w, r, l.log, http.StatusForbidden, "Refused", "This request did not come from the list of pending approvals.", "", "")
		return
	}
	if c, err := r.Cookie(cookieName); err == nil && equal(c.Value, a.cookie) {
		// This browser opened it already.
		http.Redirect(w, r, "/a/"+a.req.ID, http.StatusSeeOther)
		return
	}
	switch l.openFromList(s, g, a) {
	case ticketWrong:
		message(w, r, l.log, http.StatusForbidden, "Not this browser", "The list of pending approvals opens only in the browser window fisk-mcp opened an approval page in.", "", "")
	case ticketEnded:
		o := l.state(a)
		message(w, r, l.log, http.StatusConflict, "Approval ended", outcomeText[o], o, "/")
	case ticketReused:
		l.log.Warn("an approval's page was opened twice from the list; approval cancelled", "approval", a.req.ID, "tool", a.req.Tool)
		message(w, r, l.log, http.StatusConflict, "Approval cancelled", outcomeText[Reused], Reused, "/")
	case ticketExchanged:
		l.giveCookie(w, a)
		http.Redirect(w, r, "/a/"+a.req.ID, http.StatusSeeOther)
	}
}
