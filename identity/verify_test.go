package identity

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// An access token's typ, where the issuer sets one, says it is an access
// token (RFC 9068's at+jwt, or JWT as ORY Hydra writes it); a JWT of
// another kind signed with the same keys is refused.
func TestOnlyAccessTokenTypesAreAdmitted(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss)
	for _, c := range []struct {
		typ   any // nil: no typ header
		admit bool
	}{
		{nil, true},
		{"at+jwt", true},
		{"application/at+jwt", true},
		{"AT+JWT", true},
		{"JWT", true},
		{"dpop+jwt", false},
		{"logout+jwt", false},
		{"id_token+jwt", false},
		{"secevent+jwt", false},
		{"", false},
		{7, false},
	} {
		var headers map[jose.HeaderKey]any
		if c.typ != nil {
			headers = map[jose.HeaderKey]any{jose.HeaderType: c.typ}
		}
		resp, out := authenticate(t, res, "Bearer "+iss.sign(t, iss.claims(nil), headers))
		if got := resp.StatusCode == http.StatusOK && out != nil; got != c.admit {
			t.Errorf("typ %v: status %d, want admitted %v", c.typ, resp.StatusCode, c.admit)
		}
		if want := `error="invalid_token", error_description="` + errType.Error() + `"`; !c.admit && !strings.Contains(resp.Header.Get("WWW-Authenticate"), want) {
			t.Errorf("typ %v: WWW-Authenticate %q, want %s", c.typ, resp.Header.Get("WWW-Authenticate"), want)
		}
	}
}

// The scp claim is an array (Okta) or one space-separated string
// (Microsoft Entra ID); either gives the caller its scopes.
func TestScopesAreReadFromAnArrayOrAString(t *testing.T) {
	iss := newTestIssuer(t)
	res := newResource(t, iss, "tools", "admin")
	for _, scp := range []any{[]string{"tools", "admin"}, "tools admin"} {
		resp, out := authenticate(t, res, "Bearer "+iss.sign(t, iss.claims(func(c map[string]any) { c["scp"] = scp }), nil))
		if resp.StatusCode != http.StatusOK || out == nil {
			t.Errorf("scp %#v: status %d, want admitted", scp, resp.StatusCode)
		}
	}
}

// An issuer whose metadata names its keys but not what only clients need
// (Microsoft Entra ID lists no PKCE methods) still has its tokens checked.
func TestKeysAreFoundInMetadataThatOnlyNamesThem(t *testing.T) {
	iss := newTestIssuer(t)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("GET /tenant/v2.0/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL + "/tenant/v2.0", "jwks_uri": iss.url + "jwks"})
	})
	res, err := New(Config{Issuer: srv.URL + "/tenant/v2.0", Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	token := iss.sign(t, iss.claims(func(c map[string]any) { c["iss"] = srv.URL + "/tenant/v2.0" }), nil)
	if resp, out := authenticate(t, res, "Bearer "+token); resp.StatusCode != http.StatusOK || out == nil {
		body, _ := io.ReadAll(resp.Body)
		t.Errorf("status %d (%s), want the token admitted", resp.StatusCode, body)
	}
}
