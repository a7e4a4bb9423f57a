package browser

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/fisk-mcp/fisk-mcp/identity"
	"github.com/fisk-mcp/fisk-mcp/internal/visible"
)

// SignIn makes the shared page sign people in with the authorization
// server that admits the MCP clients (OpenID Connect, authorization code
// with PKCE S256, state and nonce), instead of the approver token: the
// page is an OAuth client of its own, registered with the redirect URI
// ORIGIN/approvals/callback, ORIGIN the origin of the server's resource
// identifier (never the request's Host, which the client chooses).
type SignIn struct {
	// ClientID is the page's client ID at the authorization server.
	ClientID string
	// ClientSecret is the page's client secret, sent with HTTP Basic
	// authentication (client_secret_basic); "" for a public client,
	// which PKCE alone protects.
	ClientSecret string
	// Key signs the page's cookies (a sign-in under way, a session):
	// replicas behind one load balancer need the same key. nil means a
	// random key of this process.
	Key []byte
}

// signInFlowCookie holds a sign-in under way: its expiry and a random
// secret from which the state, nonce and PKCE verifier are derived, so
// that any replica can finish it. SameSite=Lax: the authorization
// server's redirect back is a cross-site navigation.
const signInFlowCookie = "fisk_signin"

// signInFlowTTL is how long a person has to sign in at the authorization
// server.
const signInFlowTTL = 10 * time.Minute

// maxSessionCookie bounds the session cookie, which carries the person's
// claims (browsers keep about 4 KiB a cookie).
const maxSessionCookie = 3800

// signIn is the page's OAuth client, configured once the server's
// resource (its verifier of access tokens) is known.
type signIn struct {
	opts     SignIn
	res      *identity.Resource
	may      func(approver *identity.Caller, callerID, tool string) bool
	redirect string
	scope    string

	mu      sync.Mutex
	decided map[string]string // approval ID → who approved it, until ApproverOf
}

// SignInWith finishes configuring a page made with SharedOptions.SignIn:
// res is the server's protected resource, whose authorization server the
// page signs people in with and whose checks the page's access token
// passes (issuer, audience, signature, expiry), and may decides whether
// approver may approve the call of tool (a Request's Tool) made by the
// caller callerID (a Request's CallerID). The server calls it when it
// mounts the page; the redirect URI to register is logged. It does
// nothing on a page of the approver token.
func (s *Shared) SignInWith(res *identity.Resource, may func(approver *identity.Caller, callerID, tool string) bool) error {
	if s.signIn == nil {
		return nil
	}
	cfg := res.Config()
	u, err := url.Parse(cfg.Resource)
	if err != nil || u.Host == "" {
		return fmt.Errorf("the approvals page needs the server's resource identifier to name its redirect URI, not %q", cfg.Resource)
	}
	s.signIn.res, s.signIn.may = res, may
	s.signIn.redirect = u.Scheme + "://" + u.Host + s.base + "/callback"
	s.signIn.scope = strings.Join(append([]string{"openid"}, cfg.Scopes...), " ")
	s.log.Info("the approvals page signs people in with the authorization server", "issuer", cfg.Issuer,
		"client_id", s.signIn.opts.ClientID, "redirect_uri", s.signIn.redirect)
	return nil
}

// RedirectURI is the address the authorization server sends people back
// to, to register with the page's client; "" before SignInWith.
func (s *Shared) RedirectURI() string {
	if s.signIn == nil {
		return ""
	}
	return s.signIn.redirect
}

// flowParams are a sign-in's state, nonce and PKCE verifier, derived
// from its cookie's secret.
func (s *Shared) flowParams(secret string) (state, nonce, verifier string) {
	return s.sessions.mac("state", secret), s.sessions.mac("nonce", secret), s.sessions.mac("pkce", secret)
}

// startSignIn sends the browser to the authorization server.
func (s *Shared) startSignIn(w http.ResponseWriter, r *http.Request) {
	si := s.signIn
	if si.res == nil {
		message(w, r, s.log, http.StatusServiceUnavailable, "Not ready", "Sign-in is not configured yet; reload in a moment.", "", "")
		return
	}
	meta, err := si.res.ServerMetadata(r.Context())
	if err != nil {
		s.log.Warn("reading the authorization server's metadata for the approvals page", "err", err)
		message(w, r, s.log, http.StatusServiceUnavailable, "Authorization server unreachable", "The authorization server could not be reached to sign you in; try again in a moment.", "", s.base)
		return
	}
	secret := secret(secretBytes)
	exp := s.now().Add(signInFlowTTL)
	value := fmt.Sprintf("%d.%s", exp.Unix(), secret)
	http.SetCookie(w, &http.Cookie{Name: signInFlowCookie, Value: value + "." + s.sessions.mac("flow", value), Path: s.base,
		MaxAge: int(signInFlowTTL / time.Second), HttpOnly: true, Secure: overHTTPS(r), SameSite: http.SameSiteLaxMode})
	state, nonce, verifier := s.flowParams(secret)
	sum := sha256.Sum256([]byte(verifier))
	resource := si.res.Config().Resource
	q := url.Values{
		"response_type": {"code"}, "client_id": {si.opts.ClientID}, "redirect_uri": {si.redirect}, "scope": {si.scope},
		"state": {state}, "nonce": {nonce}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		// RFC 8707's resource, and the audience some servers (Hydra,
		// Auth0) read instead: the access token must be for this server.
		"resource": {resource}, "audience": {resource},
	}
	sep := "?"
	if strings.Contains(meta.AuthorizationEndpoint, "?") {
		sep = "&"
	}
	http.Redirect(w, r, meta.AuthorizationEndpoint+sep+q.Encode(), http.StatusFound)
}

// flowSecret returns the secret of r's valid sign-in cookie, or "".
func (s *Shared) flowSecret(r *http.Request) string {
	c, err := r.Cookie(signInFlowCookie)
	if err != nil {
		return ""
	}
	value, mac, ok := cutLast(c.Value, ".")
	if !ok || !equal(mac, s.sessions.mac("flow", value)) {
		return ""
	}
	exp, secret, ok := strings.Cut(value, ".")
	if !ok || !s.now().Before(unixOf(exp)) {
		return ""
	}
	return secret
}

// callback finishes a sign-in: it checks the state, exchanges the code
// (with the PKCE verifier) for tokens, checks them, and gives the person
// a session that names them, and no token.
func (s *Shared) callback(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, text string) {
		message(w, r, s.log, status, "Not signed in", text, "", s.base)
	}
	secret := s.flowSecret(r)
	// One sign-in per cookie: whatever happens next, it is used up.
	http.SetCookie(w, &http.Cookie{Name: signInFlowCookie, Value: "", Path: s.base, MaxAge: -1, HttpOnly: true, Secure: overHTTPS(r), SameSite: http.SameSiteLaxMode})
	q := r.URL.Query()
	state, nonce, verifier := s.flowParams(secret)
	if secret == "" || !equal(q.Get("state"), state) {
		s.log.Warn("refusing a sign-in on the approvals page: its state is not the one this browser's sign-in began with", "remote", r.RemoteAddr)
		fail(http.StatusBadRequest, "This sign-in was not begun in this browser, or took too long: sign in again.")
		return
	}
	if e := q.Get("error"); e != "" {
		s.log.Warn("the authorization server refused a sign-in on the approvals page", "error", logField(e))
		fail(http.StatusForbidden, "The authorization server did not sign you in ("+logField(e)+"); sign in again, or ask its operator.")
		return
	}
	who, err := s.redeem(r.Context(), q.Get("code"), verifier, nonce)
	if err != nil {
		s.log.Warn("refusing a sign-in on the approvals page", "remote", r.RemoteAddr, "err", err)
		fail(http.StatusForbidden, "The sign-in could not be completed: "+err.Error()+". Sign in again.")
		return
	}
	exp := s.now().Add(sessionTTL)
	if !who.Expiry.IsZero() && who.Expiry.Before(exp) {
		exp = who.Expiry
	}
	value, err := s.sessions.issuePerson(who, exp)
	if err != nil || len(value) > maxSessionCookie {
		fail(http.StatusForbidden, "Your token carries more claims (groups) than a session cookie can hold; ask the authorization server's operator to send fewer to this client.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: value, Path: s.base, MaxAge: int(exp.Sub(s.now()) / time.Second),
		HttpOnly: true, Secure: overHTTPS(r), SameSite: http.SameSiteStrictMode})
	s.log.Info("signed in on the approvals page", "approver", personField(who.Subject), "approver_name", personField(who.Display))
	// A page of this server sends the browser on, not a redirect: a
	// SameSite=Strict cookie is not sent on a navigation a redirect from
	// another site began.
	render(w, r, s.log, http.StatusOK, "message", view{Title: "Signed in", Message: "Signed in as " + nameOf(who) + ".", Back: s.base, Refresh: s.base})
}

// Reasons a sign-in is refused: fixed words, shown to the person.
var (
	errCode    = errors.New("the authorization server refused the code (used already, expired, or not this client's)")
	errIDToken = errors.New("the ID token does not belong to this sign-in")
	errToken   = errors.New("the access token is not one this server accepts")
)

// redeem exchanges code at the token endpoint and returns who signed in.
//
// The person is the access token's: it is checked as every MCP client's
// is (signature, issuer, this server's audience, expiry) and gives the
// same caller, with the claims the policy reads, so the approver is the
// principal they are when they call. The ID token, meant for the page as
// a client, ties the exchange to this browser's sign-in: its nonce, its
// audience (this client), its issuer and subject (the access token's).
// It came straight from the token endpoint over the connection the page
// opened, so its signature need not be checked (OpenID Connect Core
// 3.1.3.7); it is parsed by go-jose all the same, never by hand.
func (s *Shared) redeem(ctx context.Context, code, verifier, nonce string) (*identity.Caller, error) {
	si := s.signIn
	if code == "" {
		return nil, errCode
	}
	meta, err := si.res.ServerMetadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("the authorization server could not be reached: %w", err)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {si.redirect},
		"code_verifier": {verifier}, "resource": {si.res.Config().Resource}}
	if si.opts.ClientSecret == "" {
		form.Set("client_id", si.opts.ClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, meta.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if si.opts.ClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(si.opts.ClientID), url.QueryEscape(si.opts.ClientSecret))
	}
	client := si.res.Config().Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the authorization server could not be reached: %w", err)
	}
	defer resp.Body.Close()
	var tokens struct {
		AccessToken string `json:"access_token"`
		IDToken     string `json:"id_token"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&tokens) != nil {
		return nil, errCode
	}
	who, err := si.res.Verify(ctx, tokens.AccessToken)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errToken, err)
	}
	id, err := jwt.ParseSigned(tokens.IDToken, identity.Algorithms)
	if err != nil {
		return nil, errIDToken
	}
	var std jwt.Claims
	var more struct {
		Nonce string `json:"nonce"`
	}
	cfg := si.res.Config()
	if id.UnsafeClaimsWithoutVerification(&std, &more) != nil || std.Issuer != cfg.Issuer || !std.Audience.Contains(si.opts.ClientID) ||
		!equal(more.Nonce, nonce) || std.Subject != who.Subject ||
		std.ValidateWithLeeway(jwt.Expected{Time: s.now()}, cfg.Leeway) != nil {
		return nil, errIDToken
	}
	return who, nil
}

// mayDecide reports whether who may decide p, and if not why.
func (s *Shared) mayDecide(who *identity.Caller, p Request) (ok bool, why string) {
	switch {
	case s.signIn.may != nil && s.signIn.may(who, p.CallerID, p.Tool):
		return true, ""
	case who.UserID() == p.CallerID:
		return false, "it is your own call, and someone else must approve it"
	}
	return false, "the server's policy does not let you approve it"
}

// decideAs records who's decision o on p in the store, and who took it
// when the store keeps that (an ApproverStore: the built-in ones do),
// for the Ask waiting on any replica to name them.
func (s *Shared) decideAs(ctx context.Context, who *identity.Caller, p Pending, o Outcome) (bool, error) {
	if as, ok := s.store.(ApproverStore); ok && who != nil {
		return as.DecideBy(ctx, p.ID, o, who.Subject)
	}
	return s.store.Decide(ctx, p.ID, o)
}

// noteApprover remembers, for ApproverOf, who the store says approved r,
// on whichever replica's page.
func (s *Shared) noteApprover(ctx context.Context, r Request) {
	as, ok := s.store.(ApproverStore)
	if s.signIn == nil || !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	by, err := as.DecidedBy(ctx, r.ID)
	if err != nil {
		s.log.Warn("reading who approved from the store", "approval", r.ID, "err", err)
	}
	if by == "" {
		return
	}
	s.signIn.mu.Lock()
	defer s.signIn.mu.Unlock()
	s.signIn.decided[r.ID] = by
}

// ApproverOf names who approved the approval id, once, after its Ask
// returned Approved ([elicit.ApproverOf]); "" when the store does not
// keep who decided.
func (s *Shared) ApproverOf(id string) string {
	if s.signIn == nil {
		return ""
	}
	s.signIn.mu.Lock()
	defer s.signIn.mu.Unlock()
	by := s.signIn.decided[id]
	delete(s.signIn.decided, id)
	return by
}

// nameOf is how the page names a signed-in person.
func nameOf(who *identity.Caller) string {
	if who.Display != "" && who.Display != who.Subject {
		return personField(who.Subject) + " (" + personField(who.Display) + ")"
	}
	return personField(who.Subject)
}

// logField bounds what the authorization server sends back (its error
// code) for a page and a log line.
func logField(s string) string { return visible.Cut(visible.Escape(s, visible.Graphic), 64) }

// personField is a person's subject or name as a page or a log line shows
// it: the authorization server's text, neutralised and bounded.
func personField(s string) string {
	return visible.Cut(visible.Escape(s, visible.Graphic), maxShownField)
}

// SignsPeopleIn reports whether the page signs people in with the
// authorization server and asks who may decide each call
// ([elicit.SignsPeopleIn]): only then is it asked about a call whose
// caller may not approve it.
func (s *Shared) SignsPeopleIn() bool { return s.signIn != nil }
