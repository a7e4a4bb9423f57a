package elicit

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The callers of these tests, as an OAuth resource server would admit
// them: a bearer token names one; a request without one has no identity.
var testCallers = map[string]string{
	"alice-token": "https://issuer.example#alice",
	"bob-token":   "https://issuer.example#bob",
}

// serveCallers serves the fixture over stateless HTTP, putting the
// caller's auth.TokenInfo on each request that carries a bearer token,
// as package identity does.
func (f *fixture) serveCallers() string {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.srv },
		&mcp.StreamableHTTPOptions{Stateless: true})
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		id, ok := testCallers[token]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: id, Expiration: time.Now().Add(time.Hour)}, nil
	}
	authed := auth.RequireBearerToken(verify, nil)(h)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			h.ServeHTTP(w, r)
			return
		}
		authed.ServeHTTP(w, r)
	}))
	f.t.Cleanup(ts.Close)
	return ts.URL
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token == "" {
		return http.DefaultTransport.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// manualAs connects a 2026-07-28 client presenting token ("" for none)
// whose retries the test drives by hand.
func (f *fixture) manualAs(url, token string) *mcp.ClientSession {
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}
	return connectClient(f.t, tr, mrtrVersion, &mcp.ClientOptions{
		ElicitationHandler: answering("accept", nil).handle,
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
}

func TestApprovalIsBoundToTheCaller(t *testing.T) {
	tests := []struct {
		name          string
		asker, answer string // bearer tokens; "" is a caller without identity
		runs          bool
	}{
		{"same caller runs", "alice-token", "alice-token", true},
		{"no identity on both runs", "", "", true},
		{"another caller is refused", "alice-token", "bob-token", false},
		{"a caller without identity cannot use an identified caller's approval", "alice-token", "", false},
		{"an identified caller cannot use an approval issued without identity", "", "alice-token", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			url := f.serveCallers()
			args := map[string]any{"name": "orders"}
			first := call(t, f.manualAs(url, tt.asker), "rm", args)
			answers := mcp.InputResponseMap{onlyID(t, first): yes()}

			res := retry(t, f.manualAs(url, tt.answer), "rm", args, answers, first.RequestState)

			if !tt.runs {
				f.wantRefused(res, CodeMismatch, "Not run")
				if d := f.last(); !strings.Contains(d.Detail, "another caller") || d.Approver != "" {
					t.Errorf("decision = %+v, want a mismatch saying the approval was issued to another caller", d)
				}
				return
			}
			if res.IsError || f.ran.Load() != 1 {
				t.Fatalf("result = %q, ran %d; want one run", text(res), f.ran.Load())
			}
			if d := f.last(); d.Approver != ApproverCaller {
				t.Errorf("approver = %q, want %q", d.Approver, ApproverCaller)
			}
		})
	}
}

// A state issued to a caller without identity has no caller claim, so it
// reads as one issued before callers were bound: such states keep working
// for callers without identity, and only for them.
func TestStateOfACallerWithoutIdentityHasNoCallerClaim(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	url := f.serveCallers()
	for token, want := range map[string]bool{"": false, "alice-token": true} {
		first := call(t, f.manualAs(url, token), "rm", map[string]any{"name": "orders"})
		c, err := f.gate.signer.verify(first.RequestState)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := b64.DecodeString(strings.Split(first.RequestState, ".")[1])
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		if _, has := raw["c"]; has != want || (c.Caller != "") != want {
			t.Errorf("caller %q: state claims %s; want a caller claim: %v", token, data, want)
		}
	}
}
