package identity

import (
	"net/http"
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
