package server

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/fisk-mcp/fisk-mcp/identity"
)

// BenchmarkHTTPCallStaticTokenAndOAuth measures one tools/call of an
// in-process tool over streamable HTTP, admitted by the static bearer
// token and by an OAuth access token (RS256, 2048-bit key, keys cached),
// in the same run: the difference is what token validation adds to a call.
func BenchmarkHTTPCallStaticTokenAndOAuth(b *testing.B) {
	const static = "a-static-token-of-thirty-two-chr"
	issuer, token := benchIssuer(b)
	for _, c := range []struct {
		name  string
		cfg   HTTPConfig
		token string
	}{
		{"static", HTTPConfig{Token: static}, static},
		{"oauth", HTTPConfig{OAuth: identity.Config{Issuer: issuer, Resource: "http://127.0.0.1/mcp"}}, token},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, _ := newServer(b, Config{}, customSet(b, echoTool(b)))
			base, _ := serveHTTP(b, s, c.cfg)
			cs := connectHTTP(b, base, c.token, legacyVersion, nil)
			args := map[string]any{"word": "hi"}
			b.ReportAllocs()
			for b.Loop() {
				if res := call(b, cs, "echo_json", args); res.IsError {
					b.Fatal(text(res))
				}
			}
		})
	}
}

// benchIssuer serves an issuer's OpenID configuration and key set on
// loopback and returns its identifier and an access token of it for
// http://127.0.0.1/mcp.
func benchIssuer(b *testing.B) (issuer, token string) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	issuer = srv.URL + "/"
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "jwks_uri": srv.URL + "/jwks",
			"authorization_endpoint": srv.URL + "/auth", "token_endpoint": srv.URL + "/token", "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k", Algorithm: "RS256", Use: "sig"}}})
	})
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k"))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	token, err = jwt.Signed(signer).Claims(jwt.Claims{Issuer: issuer, Subject: "bench", Audience: jwt.Audience{"http://127.0.0.1/mcp"},
		Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now)}).Serialize()
	if err != nil {
		b.Fatal(err)
	}
	return issuer, token
}
