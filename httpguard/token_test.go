package httpguard

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const testToken = "correct-horse-battery-staple"

// authorized sends one request from remote with the Authorization header
// given ("" for none) through h.
func authorized(t *testing.T, h http.Handler, remote, header string) *http.Response {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/mcp", nil)
	req.RemoteAddr = remote
	if header != "" {
		req.Header.Set("Authorization", header)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func TestBearerAdmitsOnlyTheToken(t *testing.T) {
	g, err := New(Config{Auth: NewBearer(testToken, nil)})
	if err != nil {
		t.Fatal(err)
	}
	h := g.Authenticate(served)
	cases := []struct {
		name, header string
		status       int
		challenge    string
	}{
		{"missing", "", http.StatusUnauthorized, `Bearer realm="fisk-mcp"`},
		{"wrong scheme", "Basic " + testToken, http.StatusUnauthorized, `Bearer realm="fisk-mcp"`},
		{"empty token", "Bearer  ", http.StatusUnauthorized, `Bearer realm="fisk-mcp"`},
		{"wrong token", "Bearer not-the-token", http.StatusUnauthorized, `error="invalid_token"`},
		{"token prefix", "Bearer " + testToken[:10], http.StatusUnauthorized, `error="invalid_token"`},
		{"token", "Bearer " + testToken, http.StatusOK, ""},
		{"scheme in lower case, spaces around the token", "bearer  " + testToken + " ", http.StatusOK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := authorized(t, h, "192.0.2.1:4000", c.header)
			if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != c.status || !strings.Contains(got, c.challenge) {
				t.Errorf("status %d, WWW-Authenticate %q; want %d with %q", resp.StatusCode, got, c.status, c.challenge)
			}
		})
	}
}

// Past the allowance of wrong tokens, an address is refused with 429 and
// Retry-After, the right token included, and the log says so once; another
// address is not held to it.
func TestBearerBoundsWrongTokensPerAddress(t *testing.T) {
	var logs bytes.Buffer
	h := http.Handler(served)
	g, err := New(Config{Auth: NewBearer(testToken, slog.New(slog.NewTextHandler(&logs, nil)))})
	if err != nil {
		t.Fatal(err)
	}
	h = g.Authenticate(h)
	for i := range DefaultBurst {
		if resp := authorized(t, h, "192.0.2.1:4000", fmt.Sprintf("Bearer guess-%02d", i)); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: status %d, want 401", i+1, resp.StatusCode)
		}
	}
	for _, token := range []string{"one-guess-too-many", testToken} {
		resp := authorized(t, h, "192.0.2.1:4001", "Bearer "+token)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "try again in") {
			t.Errorf("past the allowance, token %q: status %d, Retry-After %q, body %q; want 429 saying when to try again", token, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	if n := strings.Count(logs.String(), "refusing bearer tokens from an address that sent too many wrong ones"); n != 1 {
		t.Errorf("the allowance running out was logged %d times, want once:\n%s", n, logs.String())
	}
	if resp := authorized(t, h, "192.0.2.2:4000", "Bearer "+testToken); resp.StatusCode != http.StatusOK {
		t.Errorf("another address with the right token: status %d, want 200", resp.StatusCode)
	}
}

// An Authenticator may pass on a request of its own (one whose context
// names the caller); without one, every request passes.
func TestAuthenticateServesTheRequestTheAuthenticatorReturns(t *testing.T) {
	type callerKey struct{}
	named := authFunc(func(_ http.ResponseWriter, r *http.Request) (*http.Request, bool) {
		return r.WithContext(context.WithValue(r.Context(), callerKey{}, "alice")), true
	})
	var caller any
	seen := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { caller = r.Context().Value(callerKey{}) })
	for _, c := range []struct {
		auth Authenticator
		want any
	}{{named, "alice"}, {nil, nil}} {
		caller = "unset"
		g, err := New(Config{Auth: c.auth})
		if err != nil {
			t.Fatal(err)
		}
		authorized(t, g.Authenticate(seen), "192.0.2.1:4000", "")
		if caller != c.want {
			t.Errorf("Auth %T: the handler saw caller %v, want %v", c.auth, caller, c.want)
		}
	}
}

// authFunc is an Authenticator made of a function.
type authFunc func(http.ResponseWriter, *http.Request) (*http.Request, bool)

func (f authFunc) Authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	return f(w, r)
}
