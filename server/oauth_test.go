package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/identity"
)

func TestListenWithOAuthNeedsAResourceOffLoopbackAndNoToken(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	issuer := identity.Config{Issuer: "https://auth.example.com/"}
	withResource := identity.Config{Issuer: "https://auth.example.com/", Resource: "https://mcp.example.com/mcp"}
	cases := []struct {
		name string
		cfg  HTTPConfig
		want string // in the error; "" for success
	}{
		{"non-loopback without a resource", HTTPConfig{Addr: "0.0.0.0:0", OAuth: issuer}, "--oauth-resource"},
		{"with a token as well", HTTPConfig{Addr: "127.0.0.1:0", Token: "a-long-enough-token", OAuth: issuer}, "choose one"},
		{"non-loopback with a resource", HTTPConfig{Addr: "0.0.0.0:0", OAuth: withResource}, ""},
		{"loopback without a resource", HTTPConfig{Addr: "127.0.0.1:0", OAuth: issuer}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hs, err := s.ListenHTTP(c.cfg)
			if err == nil {
				hs.Close()
			}
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("ListenHTTP: %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

// A loopback server without a configured resource serves the metadata
// of the bound address, at both well-known paths, without a token, and
// challenges a request to /mcp with its address.
func TestLoopbackOAuthServesTheMetadataOfTheBoundAddress(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	hs, err := s.ListenHTTP(HTTPConfig{Addr: "127.0.0.1:0", OAuth: identity.Config{Issuer: "https://auth.example.com/", Scopes: []string{"tools"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })
	go hs.Serve(t.Context())
	base := "http://" + hs.Addr().String()
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		var meta map[string]any
		json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || meta["resource"] != base+"/mcp" {
			t.Errorf("%s: status %d, metadata %v, want the resource %s", path, resp.StatusCode, meta, base+"/mcp")
		}
	}
	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `Bearer resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp", scope="tools"`
	if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized || got != want {
		t.Errorf("/mcp without a token: status %d, WWW-Authenticate %q, want 401 and %q", resp.StatusCode, got, want)
	}
}
