package identity

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

const resource = "http://127.0.0.1:9/mcp"

// testIssuer is an authorization server's metadata and keys, served on
// loopback, with the signing key its tokens use.
type testIssuer struct {
	url      string
	key      *ecdsa.PrivateKey
	mu       sync.Mutex
	kid      string // the ID the key is published and signs under
	jwksHits atomic.Int32
}

func newTestIssuer(t testing.TB) *testIssuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	iss := &testIssuer{key: key, kid: "k1"}
	iss.serve(t, func() jose.JSONWebKey {
		return jose.JSONWebKey{Key: &key.PublicKey, KeyID: iss.currentKID(), Algorithm: "ES256", Use: "sig"}
	})
	return iss
}

// newTestIssuerWithKey is an issuer publishing only key, whose tokens the
// caller signs itself.
func newTestIssuerWithKey(t testing.TB, key jose.JSONWebKey) *testIssuer {
	iss := &testIssuer{}
	iss.serve(t, func() jose.JSONWebKey { return key })
	return iss
}

// serve serves the issuer's metadata and the key published returns.
func (iss *testIssuer) serve(t testing.TB, published func() jose.JSONWebKey) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	iss.url = srv.URL + "/"
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": iss.url, "jwks_uri": srv.URL + "/jwks", "authorization_endpoint": srv.URL + "/auth",
			"token_endpoint": srv.URL + "/token", "code_challenge_methods_supported": []string{"S256"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		iss.jwksHits.Add(1)
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{published()}})
	})
}

func (iss *testIssuer) currentKID() string {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return iss.kid
}

// setKID publishes the key under kid, and signs under it, from now on.
func (iss *testIssuer) setKID(kid string) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.kid = kid
}

// sign returns a token of claims signed by the issuer's key, with the
// extra header fields given.
func (iss *testIssuer) sign(t testing.TB, claims map[string]any, headers map[jose.HeaderKey]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithHeader("kid", iss.currentKID())
	for k, v := range headers {
		opts = opts.WithHeader(k, v)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: iss.key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// claimsFor are valid claims of iss for resource, changed by edit.
func (iss *testIssuer) claims(edit func(map[string]any)) map[string]any {
	now := time.Now()
	c := map[string]any{"iss": iss.url, "sub": "alice", "aud": []string{resource}, "exp": now.Add(time.Hour).Unix(),
		"iat": now.Unix(), "nbf": now.Unix(), "scp": []string{"tools"}, "email": "alice@example.com"}
	if edit != nil {
		edit(c)
	}
	return c
}

// unsigned is a token with alg none, as an attacker writes it.
func unsigned(claims map[string]any) string {
	b64 := base64.RawURLEncoding.EncodeToString
	body, _ := json.Marshal(claims)
	return b64([]byte(`{"alg":"none","kid":"k1"}`)) + "." + b64(body) + "."
}

// hmacSigned is a token signed with HS256, its key the issuer's public
// key's bytes: the algorithm confusion attack.
func hmacSigned(t *testing.T, iss *testIssuer, claims map[string]any) string {
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &iss.key.PublicKey})
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: pub}, (&jose.SignerOptions{}).WithHeader("kid", iss.currentKID()))
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := jwt.Signed(s).Claims(claims).Serialize()
	return tok
}

// authenticate passes one request with header auth through res and
// returns the response and the request handed on (nil when refused).
func authenticate(t *testing.T, res *Resource, authz string) (*http.Response, *http.Request) {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/mcp", nil)
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	rec := httptest.NewRecorder()
	out, ok := res.Authenticate(rec, req)
	if ok != (out != nil) {
		t.Fatalf("Authenticate returned ok %v with request %v", ok, out)
	}
	return rec.Result(), out
}

func newResource(t *testing.T, iss *testIssuer, scopes ...string) *Resource {
	t.Helper()
	res, err := New(Config{Issuer: iss.url, Resource: resource, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestAuthenticateRefusesEveryTokenNotIssuedForThisResource(t *testing.T) {
	iss := newTestIssuer(t)
	other := newTestIssuer(t)
	res := newResource(t, iss)
	meta := `Bearer resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp"`
	invalid := meta + `, error="invalid_token"`
	cases := []struct {
		name, authz, challenge string
	}{
		{"no token", "", meta},
		{"another scheme", "Basic YWxpY2U6cHc=", meta},
		{"not a JWT", "Bearer opaque-token", invalid},
		{"alg none", "Bearer " + unsigned(iss.claims(nil)), invalid},
		{"HMAC with the public key as secret", "Bearer " + hmacSigned(t, iss, iss.claims(nil)), invalid},
		{"another audience", "Bearer " + iss.sign(t, iss.claims(func(c map[string]any) { c["aud"] = "http://127.0.0.1:9/other" }), nil), invalid},
		{"no audience", "Bearer " + iss.sign(t, iss.claims(func(c map[string]any) { delete(c, "aud") }), nil), invalid},
		{"another issuer named", "Bearer " + iss.sign(t, iss.claims(func(c map[string]any) { c["iss"] = other.url }), nil), invalid},
		{"another issuer's key", "Bearer " + other.sign(t, iss.claims(nil), nil), invalid},
		{"expired beyond the leeway", "Bearer " + iss.sign(t, iss.claims(func(c map[string]any) { c["exp"] = time.Now().Add(-DefaultLeeway - time.Minute).Unix() }), nil), invalid},
		{"not valid yet", "Bearer " + iss.sign(t, iss.claims(func(c map[string]any) { c["nbf"] = time.Now().Add(time.Hour).Unix() }), nil), invalid},
		{"no expiry", "Bearer " + iss.sign(t, iss.claims(func(c map[string]any) { delete(c, "exp") }), nil), invalid},
		{"no subject", "Bearer " + iss.sign(t, iss.claims(func(c map[string]any) { delete(c, "sub") }), nil), invalid},
		{"signed by a key named in jku", "Bearer " + other.sign(t, iss.claims(nil), map[jose.HeaderKey]any{"jku": other.url + "jwks"}), invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, out := authenticate(t, res, c.authz)
			if resp.StatusCode != http.StatusUnauthorized || out != nil {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, c.challenge) || (c.challenge == meta && strings.Contains(got, "error=")) {
				t.Errorf("WWW-Authenticate %q, want it to start %q", got, c.challenge)
			}
		})
	}
}

func TestAuthenticateAdmitsAValidTokenWithoutPassingItOn(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss, "tools")
	token := iss.sign(t, iss.claims(nil), nil)
	resp, out := authenticate(t, res, "Bearer "+token)
	if resp.StatusCode != http.StatusOK || out == nil {
		t.Fatalf("status %d, want the request admitted", resp.StatusCode)
	}
	if got := out.Header.Get("Authorization"); got != "" {
		t.Errorf("the request handed on carries Authorization %q", got)
	}
	info := auth.TokenInfoFromContext(out.Context())
	if info == nil || info.UserID != iss.url+"#alice" {
		t.Fatalf("TokenInfo %+v, want UserID %q", info, iss.url+"#alice")
	}
	if c := CallerFrom(out.Context()); c == nil || c.Subject != "alice" || c.Display != "alice@example.com" {
		t.Errorf("caller %+v, want alice shown as alice@example.com", c)
	}
}

func TestAuthenticateRefusesATokenWithoutTheRequiredScope(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss, "tools", "admin")
	resp, out := authenticate(t, res, "Bearer "+iss.sign(t, iss.claims(func(c map[string]any) { delete(c, "scp"); c["scope"] = "tools read" }), nil))
	if resp.StatusCode != http.StatusForbidden || out != nil {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}
	want := `Bearer resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", scope="tools admin"`
	if got := resp.Header.Get("WWW-Authenticate"); got != want {
		t.Errorf("WWW-Authenticate %q, want %q", got, want)
	}
}

// Tokens naming keys the issuer does not publish make the server fetch
// the keys again, but only a few times at once and then once per
// interval, however many such tokens arrive.
func TestUnknownKeysRefetchAtABoundedRate(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss)
	if resp, _ := authenticate(t, res, "Bearer "+iss.sign(t, iss.claims(nil), nil)); resp.StatusCode != http.StatusOK {
		t.Fatalf("valid token: status %d", resp.StatusCode)
	}
	forged := iss.sign(t, iss.claims(nil), map[jose.HeaderKey]any{"kid": "made-up"})
	for range 20 {
		if resp, _ := authenticate(t, res, "Bearer "+forged); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("unknown key: status %d, want 401", resp.StatusCode)
		}
	}
	if got, most := iss.jwksHits.Load(), int32(1+keyRefetchBurst); got > most {
		t.Errorf("the keys were fetched %d times, want at most %d", got, most)
	}
}

// A key the issuer starts signing with is accepted: the unknown key ID
// makes the server fetch the keys again.
func TestARotatedKeyIsFollowed(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss)
	if resp, _ := authenticate(t, res, "Bearer "+iss.sign(t, iss.claims(nil), nil)); resp.StatusCode != http.StatusOK {
		t.Fatalf("valid token: status %d", resp.StatusCode)
	}
	iss.setKID("k2") // the same key under a new ID stands for a new key
	if resp, _ := authenticate(t, res, "Bearer "+iss.sign(t, iss.claims(nil), nil)); resp.StatusCode != http.StatusOK {
		t.Fatalf("token of the new key: status %d, want 200", resp.StatusCode)
	}
}

// A key the issuer no longer publishes stops being accepted once the
// fetched keys are older than their maximum age.
func TestAWithdrawnKeyIsRefusedOnceTheKeysAreFetchedAgain(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss)
	token := iss.sign(t, iss.claims(nil), nil)
	if resp, _ := authenticate(t, res, "Bearer "+token); resp.StatusCode != http.StatusOK {
		t.Fatalf("valid token: status %d", resp.StatusCode)
	}
	iss.setKID("k2") // k1 withdrawn
	if resp, _ := authenticate(t, res, "Bearer "+token); resp.StatusCode != http.StatusOK {
		t.Fatalf("a key within its maximum age: status %d, want it still accepted", resp.StatusCode)
	}
	res.keys.maxAge = 0
	if resp, _ := authenticate(t, res, "Bearer "+token); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a withdrawn key past the keys' maximum age: status %d, want 401", resp.StatusCode)
	}
}

func TestMetadataURLInsertsTheWellKnownPath(t *testing.T) {
	for res, want := range map[string]string{
		"https://mcp.example.com/mcp":  "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		"https://mcp.example.com":      "https://mcp.example.com/.well-known/oauth-protected-resource",
		"https://mcp.example.com/":     "https://mcp.example.com/.well-known/oauth-protected-resource",
		"http://127.0.0.1:8080/a/mcp/": "http://127.0.0.1:8080/.well-known/oauth-protected-resource/a/mcp",
	} {
		if got := MetadataURL(res); got != want {
			t.Errorf("MetadataURL(%q) = %q, want %q", res, got, want)
		}
	}
}

func TestNewRefusesIdentifiersThatAreNotSafeURLs(t *testing.T) {
	for _, c := range []Config{
		{Issuer: "auth.example.com", Resource: "https://mcp.example.com/mcp"},
		{Issuer: "http://auth.example.com/", Resource: "https://mcp.example.com/mcp"},
		{Issuer: "https://auth.example.com/", Resource: "https://mcp.example.com/mcp#x"},
		{Issuer: "https://auth.example.com/", Resource: ""},
		{Issuer: "https://auth.example.com/", Resource: "https://mcp.example.com/mcp", Scopes: []string{`a"b`}},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", c)
		}
	}
}

func TestTheClaimsNamedAreKeptForThePolicyAndNoOthers(t *testing.T) {
	iss := newTestIssuer(t)
	res, err := New(Config{Issuer: iss.url, Resource: resource, Claims: []string{"email", "groups", "roles"}})
	if err != nil {
		t.Fatal(err)
	}
	token := iss.sign(t, iss.claims(func(c map[string]any) { c["groups"] = []string{"ops", "viewers"}; c["secret"] = "x" }), nil)
	resp, out := authenticate(t, res, "Bearer "+token)
	if resp.StatusCode != http.StatusOK || out == nil {
		t.Fatalf("status %d, want the request admitted", resp.StatusCode)
	}
	got := Claims(auth.TokenInfoFromContext(out.Context()))
	want := map[string]any{"email": "alice@example.com", "groups": []any{"ops", "viewers"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("claims kept = %v, want %v (roles absent from the token, secret not named)", got, want)
	}
	if c := CallerFrom(out.Context()); !reflect.DeepEqual(c.Claims, want) {
		t.Errorf("caller claims = %v, want %v", c.Claims, want)
	}
	// Without names, nothing is kept.
	_, out = authenticate(t, newResource(t, iss), "Bearer "+token)
	if got := Claims(auth.TokenInfoFromContext(out.Context())); got != nil {
		t.Errorf("claims kept without names = %v", got)
	}
}

func TestACallersDisplayNameIsNeutralisedAndBounded(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss, "tools")
	name := "eve\x1b[2J\u202eadmin" + strings.Repeat("x", 300)
	token := iss.sign(t, iss.claims(func(c map[string]any) { c["preferred_username"] = name }), nil)
	_, out := authenticate(t, res, "Bearer "+token)
	c := CallerFrom(out.Context())
	if c == nil {
		t.Fatal("the token was not admitted")
	}
	if strings.ContainsAny(c.Display, "\x1b\u202e") || !strings.HasPrefix(c.Display, `eve\x1b[2J\u{202e}admin`) {
		t.Errorf("display %q still acts instead of showing", c.Display)
	}
	if n := utf8.RuneCountInString(c.Display); n > maxDisplay {
		t.Errorf("display is %d runes, want at most %d", n, maxDisplay)
	}
}

// An authorization server that writes its own identifier of the API in
// aud (Entra ID: the application ID) is admitted only for that one.
func TestAnAudienceOtherThanTheResourceIsAdmittedOnlyWhenConfigured(t *testing.T) {
	const appID = "3f2a6c1e-1111-4a5b-9c7d-0123456789ab"
	iss := newTestIssuer(t)
	token := iss.sign(t, iss.claims(func(c map[string]any) { c["aud"] = appID }), nil)
	for _, c := range []struct {
		name      string
		audiences []string
		status    int
	}{
		{"not configured", nil, http.StatusUnauthorized},
		{"another application", []string{"9c7d0000-2222-4a5b-9c7d-0123456789ab"}, http.StatusUnauthorized},
		{"configured", []string{appID}, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := New(Config{Issuer: iss.url, Resource: resource, Audiences: c.audiences, Scopes: []string{"tools"}})
			if err != nil {
				t.Fatal(err)
			}
			if resp, _ := authenticate(t, res, "Bearer "+token); resp.StatusCode != c.status {
				t.Errorf("status %d, want %d", resp.StatusCode, c.status)
			}
		})
	}
	if _, err := New(Config{Issuer: iss.url, Resource: resource, Audiences: []string{"two words"}}); err == nil || !strings.Contains(err.Error(), "oauth audience") {
		t.Errorf("an audience with a space: %v, want it refused", err)
	}
}
