package identity

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// admitted reports whether res admits a request with token.
func admitted(t *testing.T, res *Resource, token string) bool {
	t.Helper()
	resp, out := authenticate(t, res, "Bearer "+token)
	return resp.StatusCode == http.StatusOK && out != nil
}

func TestARememberedTokenIsRefusedOnceItExpires(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss)
	token := iss.sign(t, iss.claims(nil), nil)
	if !admitted(t, res, token) || res.verified.len() != 1 {
		t.Fatalf("a valid token: not admitted and remembered (%d remembered)", res.verified.len())
	}
	res.now = func() time.Time { return time.Now().Add(time.Hour + 2*DefaultLeeway) }
	resp, _ := authenticate(t, res, "Bearer "+token)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("past its expiry: status %d, want 401", resp.StatusCode)
	}
}

// Once the keys are fetched again, a token remembered under the old ones
// is checked in full: here its key has been withdrawn, so it is refused.
func TestARememberedTokenIsCheckedAgainWhenTheKeysAreFetchedAgain(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss)
	old := iss.sign(t, iss.claims(nil), nil)
	if !admitted(t, res, old) {
		t.Fatal("a valid token was refused")
	}
	iss.setKID("k2") // k1 withdrawn
	if !admitted(t, res, iss.sign(t, iss.claims(nil), nil)) {
		t.Fatal("a token of the new key was refused")
	}
	if admitted(t, res, old) {
		t.Error("a token of a withdrawn key was admitted from memory after the keys were fetched again")
	}
}

// Refused tokens, even one the issuer signed that lacks a scope, leave
// nothing behind; a remembered one still needs its scopes.
func TestRefusedTokensAreNotRemembered(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss, "tools")
	other := newTestIssuer(t)
	for i := range 20 {
		sub := func(c map[string]any) { c["sub"] = fmt.Sprint("caller-", i) }
		for _, token := range []string{
			iss.sign(t, iss.claims(func(c map[string]any) { sub(c); c["aud"] = "https://other.example.com/mcp" }), nil),
			iss.sign(t, iss.claims(func(c map[string]any) { sub(c); c["exp"] = time.Now().Add(-time.Hour).Unix() }), nil),
			iss.sign(t, iss.claims(sub), map[jose.HeaderKey]any{jose.HeaderType: "id_token+jwt"}),
			iss.sign(t, iss.claims(func(c map[string]any) { sub(c); c["scp"] = []string{"read"} }), nil),
			other.sign(t, iss.claims(sub), nil),
		} {
			if admitted(t, res, token) {
				t.Fatalf("a refused token was admitted")
			}
		}
	}
	if n := res.verified.len(); n != 0 {
		t.Errorf("%d refused tokens remembered, want none", n)
	}
}

// However many valid tokens arrive, at most verifiedMax are remembered,
// the oldest forgotten first; a forgotten one is checked again.
func TestTheRememberedTokensAreBounded(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss)
	var tokens []string
	for i := range verifiedMax + 10 {
		token := iss.sign(t, iss.claims(func(c map[string]any) { c["sub"] = fmt.Sprint("caller-", i) }), nil)
		if !admitted(t, res, token) {
			t.Fatalf("token %d refused", i)
		}
		tokens = append(tokens, token)
	}
	if n := res.verified.len(); n != verifiedMax {
		t.Errorf("%d remembered, want %d", n, verifiedMax)
	}
	if _, ok := res.verified.entries[sha256.Sum256([]byte(tokens[0]))]; ok {
		t.Error("the oldest token is still remembered")
	}
	if _, ok := res.verified.entries[sha256.Sum256([]byte(tokens[len(tokens)-1]))]; !ok {
		t.Error("the newest token is not remembered")
	}
	if !admitted(t, res, tokens[0]) {
		t.Error("a forgotten token was refused")
	}
}
