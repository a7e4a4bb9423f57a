package identity

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/fisk-mcp/fisk-mcp/httpguard"
)

// BenchmarkAuthenticate compares, in one run, what admitting one request
// costs with a static bearer token and with an OAuth access token (RS256
// with a 2048-bit key, Hydra's default, and ES256), keys cached: the
// difference is what token validation adds to every call. The oauth
// variants send the same token every time, as a client does, and so are
// answered from the verified tokens; the full ones forget it before every
// request, and check it in full.
func BenchmarkAuthenticate(b *testing.B) {
	const static = "a-static-token-of-thirty-two-chr"
	iss := newTestIssuer(b)
	res, err := New(Config{Issuer: iss.url, Resource: resource, Scopes: []string{"tools"}})
	if err != nil {
		b.Fatal(err)
	}
	es256 := iss.sign(b, iss.claims(nil), nil)

	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	rsaIss := newTestIssuerWithKey(b, jose.JSONWebKey{Key: &rsaKey.PublicKey, KeyID: "r1", Algorithm: "RS256", Use: "sig"})
	rsaRes, err := New(Config{Issuer: rsaIss.url, Resource: resource, Scopes: []string{"tools"}})
	if err != nil {
		b.Fatal(err)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: rsaKey}, (&jose.SignerOptions{}).WithHeader("kid", "r1"))
	if err != nil {
		b.Fatal(err)
	}
	rs256, err := jwt.Signed(s).Claims(rsaIss.claims(nil)).Serialize()
	if err != nil {
		b.Fatal(err)
	}

	forget := func(r *Resource) func() { return func() { clear(r.verified.entries) } }
	for _, c := range []struct {
		name   string
		auth   httpguard.Authenticator
		token  string
		before func() // before every request
	}{
		{"static", httpguard.NewBearer(static, nil), static, func() {}},
		{"oauth-rs256", rsaRes, rs256, func() {}},
		{"oauth-rs256-full", rsaRes, rs256, forget(rsaRes)},
		{"oauth-es256", res, es256, func() {}},
		{"oauth-es256-full", res, es256, forget(res)},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			req.RemoteAddr = "127.0.0.1:5000"
			req.Header.Set("Authorization", "Bearer "+c.token)
			if _, ok := c.auth.Authenticate(httptest.NewRecorder(), req); !ok {
				b.Fatal("refused")
			}
			b.ReportAllocs()
			for b.Loop() {
				c.before()
				if _, ok := c.auth.Authenticate(nil, req); !ok {
					b.Fatal("refused")
				}
			}
		})
	}
}
