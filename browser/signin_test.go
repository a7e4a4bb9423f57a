package browser

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/fisk-mcp/fisk-mcp/identity"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// testIssuer is an OpenID provider in the test process: metadata, keys,
// an authorization endpoint that signs in whoever the test names at once,
// and a token endpoint that redeems each code once, with its PKCE
// verifier.
type testIssuer struct {
	url string
	key *ecdsa.PrivateKey

	mu       sync.Mutex
	who      string   // the subject signed in
	groups   []string // their groups claim
	codes    map[string]url.Values
	issued   []string // every token issued
	callback string   // the last address the browser was sent back to
	// edit changes the claims of the tokens issued: "access" or "id".
	edit func(kind string, claims map[string]any)
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	iss := &testIssuer{key: key, codes: map[string]url.Values{}}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	iss.url = srv.URL + "/"
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": iss.url, "jwks_uri": srv.URL + "/jwks", "authorization_endpoint": srv.URL + "/auth",
			"token_endpoint": srv.URL + "/token", "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	mux.HandleFunc("GET /auth", iss.authorize)
	mux.HandleFunc("POST /token", iss.token)
	return iss
}

func (iss *testIssuer) signInAs(who string, groups ...string) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.who, iss.groups = who, groups
}

func (iss *testIssuer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" || !strings.Contains(q.Get("scope"), "openid") {
		http.Error(w, "not an OpenID code flow with PKCE", http.StatusBadRequest)
		return
	}
	iss.mu.Lock()
	code := secret(16)
	q.Set("sub", iss.who)
	q["groups"] = iss.groups
	iss.codes[code] = q
	back := q.Get("redirect_uri") + "?" + url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
	iss.callback = back
	iss.mu.Unlock()
	http.Redirect(w, r, back, http.StatusFound)
}

func (iss *testIssuer) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	iss.mu.Lock()
	defer iss.mu.Unlock()
	q, ok := iss.codes[r.PostForm.Get("code")]
	delete(iss.codes, r.PostForm.Get("code"))
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != q.Get("code_challenge") ||
		r.PostForm.Get("client_id") != q.Get("client_id") || r.PostForm.Get("redirect_uri") != q.Get("redirect_uri") {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
		return
	}
	now := time.Now()
	base := func() map[string]any {
		return map[string]any{"iss": iss.url, "sub": q.Get("sub"), "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "groups": q["groups"]}
	}
	access, id := base(), base()
	access["aud"], access["email"] = q.Get("resource"), q.Get("sub")+"@example.com"
	id["aud"], id["nonce"] = q.Get("client_id"), q.Get("nonce")
	if iss.edit != nil {
		iss.edit("access", access)
		iss.edit("id", id)
	}
	out := map[string]string{"access_token": iss.sign(access), "id_token": iss.sign(id), "token_type": "Bearer"}
	iss.issued = append(iss.issued, out["access_token"], out["id_token"])
	json.NewEncoder(w).Encode(out)
}

func (iss *testIssuer) sign(claims map[string]any) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: iss.key, KeyID: "k1"}}, nil)
	if err != nil {
		panic(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		panic(err)
	}
	return tok
}

func (iss *testIssuer) last() string {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return iss.callback
}

const signInClient = "approvals-page"

// newSignInRig is a page that signs people in with iss, and lets only
// the group ops approve.
func newSignInRig(t *testing.T, iss *testIssuer, store Store) *sharedRig {
	t.Helper()
	logs := &testsupport.LogBuffer{}
	s, err := NewShared(SharedOptions{SignIn: &SignIn{ClientID: signInClient}, Store: store, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	res, err := identity.New(identity.Config{Issuer: iss.url, Resource: srv.URL + "/mcp", Claims: []string{"groups"}})
	if err != nil {
		t.Fatal(err)
	}
	ops := func(approver *identity.Caller, callerID, tool string) bool {
		groups, _ := approver.Claims["groups"].([]any)
		return approver.UserID() != callerID && slices.Contains(groups, any("ops"))
	}
	if err := s.SignInWith(res, ops); err != nil {
		t.Fatal(err)
	}
	return &sharedRig{s: s, srv: srv, logs: logs}
}

// signInAs signs who in through the page in a browser of their own, and
// returns the browser and the list it then shows.
func (rig *sharedRig) signInAs(t *testing.T, iss *testIssuer, who string, groups ...string) (*http.Client, page) {
	t.Helper()
	iss.signInAs(who, groups...)
	c := browserClient(t)
	if p := get(t, c, rig.url()); !strings.Contains(p.body, `id="signin"`) || strings.Contains(p.body, `id="token"`) {
		t.Fatalf("the page does not offer a sign-in with the authorization server:\n%s", p.body)
	}
	if p := get(t, c, rig.url()+"/signin"); p.status != http.StatusOK || !strings.Contains(p.body, "Signed in as "+who) || !strings.Contains(p.body, `http-equiv="refresh"`) {
		t.Fatalf("signing in: %d\n%s\n%s", p.status, p.body, rig.logs.String())
	}
	list := get(t, c, rig.url())
	if !strings.Contains(list.body, `id="who">Signed in as `+who) {
		t.Fatalf("the list does not name %s:\n%s", who, list.body)
	}
	return c, list
}

func TestSignedInPeopleDecideOnlyWhatIsTheirsToDecide(t *testing.T) {
	iss := newTestIssuer(t)
	store := newNotifyStore()
	rig := newSignInRig(t, iss, store)
	r := sharedRequest("alices")
	r.CallerID = iss.url + "#alice"
	out := askShared(t, t.Context(), rig.s, store, r)

	alice, list := rig.signInAs(t, iss, "alice", "ops")
	if !strings.Contains(list.body, "Not yours to decide: it is your own call") || strings.Contains(list.body, `class="approve"`) {
		t.Errorf("Alice is offered her own call:\n%s", list.body)
	}
	for _, c := range alice.Jar.Cookies(mustURL(t, rig.url())) {
		for _, tok := range iss.issued {
			if strings.Contains(c.Value, tok) || strings.Contains(c.Value, strings.Split(tok, ".")[2]) {
				t.Errorf("the cookie %s carries a token", c.Name)
			}
		}
	}
	csrf := csrfOf(t, list)
	if p := post(t, alice, rig.url()+"/decide", rig.srv.URL, url.Values{"id": {"alices"}, "decision": {"approve"}, "csrf": {csrf}}, nil); p.status != http.StatusForbidden {
		t.Fatalf("Alice approving her own call: %d, want 403\n%s", p.status, p.body)
	}
	pending(t, out)

	carol, list := rig.signInAs(t, iss, "carol", "dev")
	if !strings.Contains(list.body, "Not yours to decide: the server&#39;s policy") {
		t.Errorf("Carol, not in ops, is offered the call:\n%s", list.body)
	}
	if p := post(t, carol, rig.url()+"/decide", rig.srv.URL, url.Values{"id": {"alices"}, "decision": {"approve"}, "csrf": {csrfOf(t, list)}}, nil); p.status != http.StatusForbidden {
		t.Fatalf("Carol approving: %d, want 403", p.status)
	}
	pending(t, out)

	bob, list := rig.signInAs(t, iss, "bob", "ops")
	if !strings.Contains(list.body, `class="approve"`) {
		t.Fatalf("Bob, in ops, is not offered the call:\n%s", list.body)
	}
	if p := post(t, bob, rig.url()+"/decide", rig.srv.URL, url.Values{"id": {"alices"}, "decision": {"approve"}, "csrf": {csrfOf(t, list)}}, nil); p.status != http.StatusOK {
		t.Fatalf("Bob approving: %d\n%s", p.status, p.body)
	}
	if o := outcome(t, out); o != Approved {
		t.Fatalf("outcome %q, want approved", o)
	}
	if who := rig.s.ApproverOf("alices"); who != "bob" {
		t.Errorf("approved by %q, want bob", who)
	}
	if who := rig.s.ApproverOf("alices"); who != "" {
		t.Errorf("the approver is named twice: %q", who)
	}
	logs := rig.logs.String()
	if !strings.Contains(logs, "approver=bob") || !strings.Contains(logs, "caller="+iss.url+"#alice") {
		t.Errorf("the decision's line does not name both:\n%s", logs)
	}
	for _, tok := range iss.issued {
		if strings.Contains(logs, tok) {
			t.Error("a token reached the log")
		}
	}
}

// A call waiting through one replica, approved by a person signed in on
// another's page, is named as theirs on the first.
func TestTheReplicaWhoseCallWaitsNamesWhoApprovedOnAnother(t *testing.T) {
	iss := newTestIssuer(t)
	store := newNotifyStore()
	asking, showing := newSignInRig(t, iss, store), newSignInRig(t, iss, store)
	r := sharedRequest("elsewhere")
	r.CallerID = iss.url + "#alice"
	out := askShared(t, t.Context(), asking.s, store, r)
	bob, list := showing.signInAs(t, iss, "bob", "ops")
	if p := post(t, bob, showing.url()+"/decide", showing.srv.URL, url.Values{"id": {"elsewhere"}, "decision": {"approve"}, "csrf": {csrfOf(t, list)}}, nil); p.status != http.StatusOK {
		t.Fatalf("Bob approving on the other replica: %d\n%s", p.status, p.body)
	}
	if o := outcome(t, out); o != Approved {
		t.Fatalf("outcome %q", o)
	}
	if who := asking.s.ApproverOf("elsewhere"); who != "bob" {
		t.Errorf("the asking replica names %q, want bob", who)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// stopAtCallback is a browser that stops where the authorization server
// sends it back to the page, so the test holds the callback.
func stopAtCallback(t *testing.T) *http.Client {
	c := browserClient(t)
	c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		if strings.HasSuffix(req.URL.Path, "/callback") {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return c
}

func TestSignInRefusesWhatDoesNotBelongToThisBrowsersSignIn(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(kind string, claims map[string]any)
		// callback turns the address the server sent the browser back to
		// into the one the browser presents.
		callback func(t *testing.T, rig *sharedRig, iss *testIssuer, sent string) string
		status   int
	}{
		{name: "a state this browser did not begin", status: http.StatusBadRequest,
			callback: func(_ *testing.T, _ *sharedRig, _ *testIssuer, sent string) string {
				u, _ := url.Parse(sent)
				q := u.Query()
				q.Set("state", "forged")
				u.RawQuery = q.Encode()
				return u.String()
			}},
		{name: "an access token for another resource", status: http.StatusForbidden,
			edit: func(kind string, claims map[string]any) {
				if kind == "access" {
					claims["aud"] = "https://other.example.com/mcp"
				}
			}},
		{name: "tokens of another issuer", status: http.StatusForbidden,
			edit: func(_ string, claims map[string]any) { claims["iss"] = "https://evil.example.com/" }},
		{name: "an ID token of another sign-in", status: http.StatusForbidden,
			edit: func(kind string, claims map[string]any) {
				if kind == "id" {
					claims["nonce"] = "another"
				}
			}},
		{name: "an ID token of another person", status: http.StatusForbidden,
			edit: func(kind string, claims map[string]any) {
				if kind == "id" {
					claims["sub"] = "mallory"
				}
			}},
		{name: "a code redeemed already", status: http.StatusForbidden,
			callback: func(t *testing.T, rig *sharedRig, iss *testIssuer, sent string) string {
				// Someone else finishes a sign-in first, and its code is
				// presented with this browser's state.
				other := browserClient(t)
				get(t, other, rig.url()+"/signin")
				used, _ := url.Parse(iss.last())
				u, _ := url.Parse(sent)
				q := u.Query()
				q.Set("code", used.Query().Get("code"))
				u.RawQuery = q.Encode()
				return u.String()
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			iss := newTestIssuer(t)
			iss.edit = c.edit
			rig := newSignInRig(t, iss, NewMemoryStore())
			iss.signInAs("alice", "ops")
			b := stopAtCallback(t)
			resp, err := b.Get(rig.url() + "/signin")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			sent := resp.Header.Get("Location")
			if !strings.HasPrefix(sent, rig.url()+"/callback?") {
				t.Fatalf("sent back to %q", sent)
			}
			if c.callback != nil {
				sent = c.callback(t, rig, iss, sent)
			}
			if p := get(t, b, sent); p.status != c.status || strings.Contains(p.body, "Signed in") {
				t.Fatalf("callback: %d, want %d\n%s", p.status, c.status, p.body)
			}
			if p := get(t, b, rig.url()); !strings.Contains(p.body, `id="signin"`) {
				t.Errorf("a refused sign-in gave a session:\n%s", p.body)
			}
			if !strings.Contains(rig.logs.String(), "level=WARN") {
				t.Errorf("the refusal is not logged:\n%s", rig.logs.String())
			}
			// The same callback again finds its sign-in used up.
			if p := get(t, b, sent); p.status != http.StatusBadRequest {
				t.Errorf("the callback again: %d, want 400", p.status)
			}
		})
	}
}

func TestNewSharedTakesEitherTheTokenOrASignIn(t *testing.T) {
	for _, o := range []SharedOptions{
		{Token: []byte(approverToken), SignIn: &SignIn{ClientID: "page"}, Store: NewMemoryStore()},
		{SignIn: &SignIn{}, Store: NewMemoryStore()},
	} {
		if _, err := NewShared(o); err == nil {
			t.Errorf("NewShared(%+v) accepted", o)
		}
	}
	s, err := NewShared(SharedOptions{Token: []byte(approverToken), Store: NewMemoryStore()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SignInWith(nil, nil); err != nil || s.RedirectURI() != "" {
		t.Errorf("a token page took a sign-in: %v, %q", err, s.RedirectURI())
	}
}
