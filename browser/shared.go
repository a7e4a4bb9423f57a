package browser

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/fisk-mcp/fisk-mcp/httpguard"
	"github.com/fisk-mcp/fisk-mcp/identity"
	"github.com/fisk-mcp/fisk-mcp/internal/ident"
)

// MinApproverTokenLen is the shortest approver token accepted, in bytes:
// it stands between the network and the decision to run a command.
const MinApproverTokenLen = 16

// storeTimeout bounds the store calls made after the call's own context
// has ended (recording a timeout, deleting the approval).
const storeTimeout = 5 * time.Second

// SharedOptions configures a [Shared].
type SharedOptions struct {
	// Token is the approver token; a person signs in to the page with it.
	// It is not, and must not be, a client's bearer token. Exactly one
	// of Token and SignIn is set.
	Token []byte
	// SignIn, when set, signs people in with the authorization server
	// instead (see [SignIn] and [Shared.SignInWith]): the page then
	// knows who decides, offers each person only what they may approve,
	// and names them in the log.
	SignIn *SignIn
	// Store holds the pending approvals, shared by replicas.
	Store Store
	// Logger receives approvals shown and decided (Info) and failed
	// sign-ins (Warn). nil means slog.Default().
	Logger *slog.Logger
	// Base is the path the page is served at: segments of letters, digits,
	// '-' or '_', each after a /; "" means "/approvals".
	Base string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Origins are the origins ("scheme://host[:port]"), besides the page's
	// own host, from which a sign-in or a decision may come: the public
	// origin of a proxy in front that passes on a Host of its own.
	Origins []string
	// PendingPerClient and PendingTotal bound the approvals waiting
	// through this replica, for one client (Request.Caller) and in all;
	// an Ask over either is refused at once with *elicit.TooManyWaiting.
	// 0 means DefaultPendingPerClient and DefaultPendingTotal.
	PendingPerClient, PendingTotal int
}

// Shared is the approvals page of a shared HTTP server: every approval
// pending in the Store, decided by whoever holds the approver token. It
// never reads the Authorization header, so a client's bearer token
// cannot approve anything.
type Shared struct {
	token    [sha256.Size]byte
	signIn   *signIn // nil: the approver token signs people in
	handler  http.Handler
	store    Store
	log      *slog.Logger
	base     string
	now      func() time.Time
	sessions sessions
	guesses  *httpguard.Limiter // wrong approver tokens, by client address
	origins  map[string]bool    // SharedOptions.Origins
	waiting  waiting
}

// NewShared checks o and returns the page.
func NewShared(o SharedOptions) (*Shared, error) {
	switch {
	case o.SignIn != nil && len(o.Token) > 0:
		return nil, errors.New("the approvals page signs people in either with the approver token or with the authorization server, not both")
	case o.SignIn != nil && o.SignIn.ClientID == "":
		return nil, errors.New("the approvals page needs its client ID at the authorization server to sign people in (--approvals-client-id)")
	case o.SignIn == nil && len(o.Token) < MinApproverTokenLen:
		return nil, fmt.Errorf("the approver token has %d bytes; it needs at least %d, or it can be guessed: make one with: openssl rand -hex 32", len(o.Token), MinApproverTokenLen)
	}
	if o.Store == nil {
		return nil, errors.New("the approvals page needs a store of pending approvals")
	}
	key := o.Token
	if o.SignIn != nil {
		key = o.SignIn.Key
	}
	s := &Shared{token: sha256.Sum256(o.Token), store: o.Store, log: o.Logger, base: strings.TrimSuffix(o.Base, "/"), now: o.Now, sessions: newSessions(key),
		guesses: httpguard.NewLimiter(httpguard.LimiterOptions{Now: o.Now}), waiting: waiting{perClient: o.PendingPerClient, total: o.PendingTotal}}
	if o.SignIn != nil {
		s.signIn = &signIn{opts: *o.SignIn, decided: map[string]string{}}
	}
	if o.Base == "" {
		s.base = "/approvals"
	}
	s.origins = map[string]bool{}
	for _, o := range o.Origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("the origin %q of the approvals page must be scheme://host[:port], as https://approvals.example.com is", o)
		}
		s.origins[o] = true
	}
	if !validBase(s.base) {
		return nil, fmt.Errorf("the approvals page path %q must be one or more segments of letters, digits, '-' or '_', each after a /, as /approvals is", o.Base)
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.handler = s.Handler()
	return s, nil
}

// ServeHTTP serves the page, as Handler does.
func (s *Shared) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Approver names who approves on the shared page, for the call log
// ([elicit.ApproverNamer]): whoever holds the approver token, or a
// person signed in whom the store cannot name (see ApproverOf).
func (s *Shared) Approver() string {
	if s.signIn != nil {
		return "signed-in approver"
	}
	return "approver token"
}

// validBase reports whether base can be the page's path: it is put into
// ServeMux patterns and a cookie's Path, unescaped.
func validBase(base string) bool {
	segs := strings.Split(base, "/")
	if len(segs) < 2 || segs[0] != "" {
		return false
	}
	for _, seg := range segs[1:] {
		if !ident.Valid(seg, maxID) {
			return false
		}
	}
	return true
}

var errDeadline = errors.New("approval deadline passed")

// Ask puts r in the Store, waits until it is decided on any replica's
// page, its deadline passes (TimedOut) or ctx ends (Cancelled), and
// deletes it. An error means the Store failed, or (*elicit.TooManyWaiting)
// that as many approvals as the bounds allow are waiting through this
// replica already.
func (s *Shared) Ask(ctx context.Context, r Request) (Outcome, error) {
	if !ident.Valid(r.ID, maxID) {
		return "", fmt.Errorf("approval ID %.64q: want 1 to 128 letters, digits, '-' or '_'", r.ID)
	}
	if err := s.waiting.take(r.Caller); err != nil {
		return "", err
	}
	defer s.waiting.release(r.Caller)
	if err := s.store.Put(ctx, Pending{Request: r, Created: s.now()}); err != nil {
		return "", fmt.Errorf("recording the approval of %s for the approvals page: %w", r.Tool, err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
		defer cancel()
		if err := s.store.Delete(dctx, r.ID); err != nil {
			s.log.Warn("deleting an ended approval from the store", "approval", r.ID, "err", err)
		}
	}()
	s.log.Info("approval waiting on the approvals page", "approval", r.ID, "tool", r.Tool, "page", s.base)
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if !r.Deadline.IsZero() {
		t := time.AfterFunc(r.Deadline.Sub(s.now()), func() { cancel(errDeadline) })
		defer t.Stop()
	}
	o, err := s.store.Wait(wctx, r.ID)
	if err == nil {
		s.ended(r, o)
		if o == Approved {
			s.noteApprover(ctx, r)
		}
		return o, nil
	}
	if wctx.Err() == nil {
		return "", fmt.Errorf("waiting for the approval of %s: %w", r.Tool, err)
	}
	o = Cancelled
	if context.Cause(wctx) == errDeadline {
		o = TimedOut
	}
	// Record the end, so no page decides it now; if a decision came
	// first, it is the outcome.
	bctx, bcancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer bcancel()
	if ok, err := s.store.Decide(bctx, r.ID, o); err == nil && !ok {
		if first, err := s.store.Wait(bctx, r.ID); err == nil {
			o = first
		}
	}
	s.ended(r, o)
	return o, nil
}

func (s *Shared) ended(r Request, o Outcome) {
	s.log.Info("approval on the approvals page ended", "approval", r.ID, "tool", r.Tool, "outcome", string(o))
}

// Handler serves the page at Base (the list, or the sign-in form),
// Base+"/login" (POST token) or, signing people in with the authorization
// server, Base+"/signin" (GET, to it) and Base+"/callback" (back from it),
// Base+"/decide" (POST id, decision, csrf) and Base+"/logout" (POST
// csrf). It carries its own authentication; mount it outside the bearer
// token check.
func (s *Shared) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+s.base, s.list)
	if s.signIn != nil {
		mux.HandleFunc("GET "+s.base+"/signin", s.startSignIn)
		mux.HandleFunc("GET "+s.base+"/callback", s.callback)
	} else {
		mux.HandleFunc("POST "+s.base+"/login", s.login)
	}
	mux.HandleFunc("POST "+s.base+"/decide", s.decide)
	mux.HandleFunc("POST "+s.base+"/logout", s.logout)
	mux.HandleFunc("GET "+s.base+"/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.base, http.StatusSeeOther)
	})
	mux.HandleFunc(s.base+"/", func(w http.ResponseWriter, r *http.Request) {
		message(w, r, s.log, http.StatusNotFound, "Not found", "There is no such page here.", "", s.base)
	})
	return secured(mux)
}

// session returns r's valid session cookie value, or "", and for a page
// that signs people in who it names.
func (s *Shared) session(r *http.Request) (string, *identity.Caller) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return "", nil
	}
	if s.signIn != nil {
		who, ok := s.sessions.personOf(c.Value, s.now())
		if !ok {
			return "", nil
		}
		return c.Value, who
	}
	if !s.sessions.valid(c.Value, s.now()) {
		return "", nil
	}
	return c.Value, nil
}

// fromPage checks that a POST comes from a page of this server: its
// Origin has r's host (and https when r is TLS: behind a TLS-terminating
// proxy r is plain while the page is https) or is one of the origins
// configured (a proxy that rewrites Host), and Sec-Fetch-Site, when
// present, is same-origin.
func (s *Shared) fromPage(r *http.Request) bool {
	if sf := r.Header.Get("Sec-Fetch-Site"); sf != "" && sf != "same-origin" {
		return false
	}
	o := r.Header.Values("Origin")
	if len(o) != 1 {
		return false
	}
	if s.origins[o[0]] {
		return true
	}
	u, err := url.Parse(o[0])
	if err != nil || u.Host != r.Host || u.Path != "" || (u.Scheme != "https" && (u.Scheme != "http" || r.TLS != nil)) {
		return false
	}
	return true
}

// overHTTPS reports whether the person reached the page over HTTPS: on a
// TLS connection, or through a proxy that ended TLS and says so
// (X-Forwarded-Proto: https, or proto=https in Forwarded, RFC 7239; the
// first proxy's word, the one nearest the person). The headers are taken
// on trust because they can only make the session cookie Secure: a client
// that forges them on plain HTTP gets a cookie its browser will not send
// back, and signs itself out.
func overHTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if v := r.Header.Get("X-Forwarded-Proto"); v != "" {
		first, _, _ := strings.Cut(v, ",")
		return strings.EqualFold(strings.TrimSpace(first), "https")
	}
	if v := r.Header.Get("Forwarded"); v != "" {
		first, _, _ := strings.Cut(v, ",")
		for pair := range strings.SplitSeq(first, ";") {
			k, val, _ := strings.Cut(strings.TrimSpace(pair), "=")
			if strings.EqualFold(k, "proto") {
				return strings.EqualFold(strings.Trim(val, `"`), "https")
			}
		}
	}
	return false
}

func (s *Shared) refuse(w http.ResponseWriter, r *http.Request) {
	message(w, r, s.log, http.StatusForbidden, "Refused", "This request did not come from the approvals page; reload it and try again.", "", s.base)
}

func (s *Shared) loginForm(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if s.signIn != nil {
		render(w, r, s.log, status, "signin", view{Title: "Approvals: sign in", Action: s.base + "/signin", Message: msg})
		return
	}
	render(w, r, s.log, status, "login", view{Title: "Approvals: sign in", Action: s.base + "/login", Message: msg})
}

func (s *Shared) login(w http.ResponseWriter, r *http.Request) {
	if !s.fromPage(r) || !form(w, r) {
		s.refuse(w, r)
		return
	}
	// Wrong tokens are bounded per address (see httpguard.Limiter): past the
	// allowance, the token is not checked, the right one included.
	client := httpguard.ClientOf(r.RemoteAddr)
	v := s.guesses.Verify(client, func() bool {
		given := sha256.Sum256([]byte(strings.TrimSpace(r.PostForm.Get("token"))))
		return subtle.ConstantTimeCompare(given[:], s.token[:]) == 1
	})
	if v.Wait > 0 {
		secs := strconv.Itoa(int(v.Wait / time.Second))
		w.Header().Set("Retry-After", secs)
		s.loginForm(w, r, http.StatusTooManyRequests, "Too many wrong tokens from this address: try again in "+secs+" seconds.")
		return
	}
	if !v.Right {
		s.log.Warn("wrong approver token on the approvals page", "remote", r.RemoteAddr)
		if v.UsedUp {
			s.log.Warn("refusing approver tokens from an address that sent too many wrong ones", "client", client,
				"allowance", s.guesses.Allowance())
		}
		s.loginForm(w, r, http.StatusForbidden, "That is not the approver token.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: s.sessions.issue(s.now()), Path: s.base,
		MaxAge: int(sessionTTL / time.Second), HttpOnly: true, Secure: overHTTPS(r), SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, s.base, http.StatusSeeOther)
}

// logout makes the browser forget its session cookie. It cannot end the
// session itself, which is stateless (see sessions): a copy of the cookie
// stays good until it expires or the approver token changes.
func (s *Shared) logout(w http.ResponseWriter, r *http.Request) {
	sess, _ := s.session(r)
	if sess == "" || !s.fromPage(r) || !form(w, r) || !equal(r.PostForm.Get("csrf"), s.sessions.csrf(sess)) {
		s.refuse(w, r)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: s.base, MaxAge: -1, HttpOnly: true, Secure: overHTTPS(r), SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, s.base, http.StatusSeeOther)
}

func (s *Shared) list(w http.ResponseWriter, r *http.Request) {
	sess, who := s.session(r)
	if sess == "" {
		s.loginForm(w, r, http.StatusOK, "")
		return
	}
	ps, err := s.pending(r.Context())
	if err != nil {
		s.log.Warn("listing pending approvals", "err", err)
		message(w, r, s.log, http.StatusServiceUnavailable, "Store unreachable", "The store of pending approvals cannot be read; reload in a moment.", "", "")
		return
	}
	pg := s.page(len(ps), r.URL.Query().Get("page"))
	now := s.now()
	ps = ps[(pg.Page-1)*pg.Size : min(pg.Page*pg.Size, len(ps))]
	v := view{Title: "Pending approvals", Script: countdown + arming, Action: s.base + "/decide", SignOut: s.base + "/logout",
		CSRF: s.sessions.csrf(sess), Items: make([]item, len(ps)), Pages: pg}
	for i, p := range ps {
		v.Items[i] = newItem(p.Request, now, true)
		if who != nil {
			ok, why := s.mayDecide(who, p.Request)
			v.Items[i].NotYours = map[bool]string{false: why}[ok]
		}
	}
	if who != nil {
		v.Who = nameOf(who)
	}
	render(w, r, s.log, http.StatusOK, "list", v)
}

// ListPage is how many approvals one page of the shared list shows: a
// page's size stays bounded however many the store holds.
const ListPage = 50

// page is the page of a list of total numbered by the query's page,
// counted from 1 and brought within the list.
func (s *Shared) page(total int, query string) *pages {
	n, _ := strconv.Atoi(query)
	pg := &pages{Total: total, Size: ListPage, Last: max(1, (total+ListPage-1)/ListPage)}
	pg.Page = min(max(n, 1), pg.Last)
	if pg.Page > 1 {
		pg.Prev = s.base + "?page=" + strconv.Itoa(pg.Page-1)
	}
	if pg.Page < pg.Last {
		pg.Next = s.base + "?page=" + strconv.Itoa(pg.Page+1)
	}
	return pg
}

// pending lists the Store's approvals not past their deadline by s.now.
func (s *Shared) pending(ctx context.Context) ([]Pending, error) {
	ps, err := s.store.List(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now()
	live := ps[:0]
	for _, p := range ps {
		if p.Deadline.IsZero() || now.Before(p.Deadline) {
			live = append(live, p)
		}
	}
	return live, nil
}

func (s *Shared) decide(w http.ResponseWriter, r *http.Request) {
	sess, who := s.session(r)
	if sess == "" || !s.fromPage(r) || !form(w, r) || !equal(r.PostForm.Get("csrf"), s.sessions.csrf(sess)) {
		s.refuse(w, r)
		return
	}
	o, ok := decisionOf(r)
	if !ok {
		message(w, r, s.log, http.StatusBadRequest, "Refused", "Choose Approve or Deny.", "", s.base)
		return
	}
	id := r.PostForm.Get("id")
	if !ident.Valid(id, maxID) {
		// Never an approval's, and not to be repeated in a log line.
		s.gone(w, r)
		return
	}
	p, ok, err := s.find(r.Context(), id)
	if err == nil && ok && who != nil {
		if may, why := s.mayDecide(who, p.Request); !may {
			s.log.Warn("refusing a decision on the approvals page: not the person's to take", "approval", id, "tool", p.Tool,
				"approver", who.Subject, "caller", p.CallerID, "why", why)
			message(w, r, s.log, http.StatusForbidden, "Not yours to decide", "You may not decide this approval: "+why+".", "", s.base)
			return
		}
	}
	if err == nil && ok {
		ok, err = s.decideAs(r.Context(), who, p, o)
	}
	if err != nil {
		s.log.Warn("deciding an approval", "approval", id, "err", err)
		message(w, r, s.log, http.StatusServiceUnavailable, "Store unreachable", "The decision could not be recorded; reload the list and try again.", "", s.base)
		return
	}
	if !ok {
		s.gone(w, r)
		return
	}
	if who != nil {
		s.log.Info("approval decided on the approvals page", "approval", id, "tool", p.Tool, "outcome", string(o),
			"approver", personField(who.Subject), "approver_name", personField(who.Display), "caller", personField(p.CallerID), "remote", r.RemoteAddr)
		message(w, r, s.log, http.StatusOK, "Decided", outcomeText[o], o, s.base)
		return
	}
	// Everyone signs in with the one token: the address is what tells
	// approvers apart afterwards.
	s.log.Info("approval decided on the approvals page", "approval", id, "tool", p.Tool, "outcome", string(o), "remote", r.RemoteAddr)
	message(w, r, s.log, http.StatusOK, "Decided", outcomeText[o], o, s.base)
}

func (s *Shared) gone(w http.ResponseWriter, r *http.Request) {
	message(w, r, s.log, http.StatusConflict, "No longer pending", "This approval is no longer pending: it was decided, timed out or cancelled.", "", s.base)
}

// find returns the pending approval id, if it is pending.
func (s *Shared) find(ctx context.Context, id string) (Pending, bool, error) {
	ps, err := s.pending(ctx)
	for _, p := range ps {
		if p.ID == id {
			return p, true, nil
		}
	}
	return Pending{}, false, err
}
