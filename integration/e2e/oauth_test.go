package e2e

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/identity"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// startOAuthServer starts a fisk-mcp with the extra flags on loopback,
// admitting the access tokens of issuer that carry the scope tools; its
// resource is its own /mcp URL.
func startOAuthServer(t *testing.T, issuer string, extra ...string) *httpServer {
	t.Helper()
	args := serveArgs(append(append([]string{"--http", "127.0.0.1:0", "--oauth-issuer", issuer, "--oauth-scope", "tools"}, extra...), fixtureBin)...)
	cmd := exec.Command(fiskMCP, args...)
	cmd.Env = append(os.Environ(), "FISK_MCP_TOKEN=")
	return startHTTPCommand(t, cmd, "")
}

// deploy calls the fixture's ungated deploy tool with a raw POST carrying
// token ("" for none), asking it to create marker, and returns the
// response once its body has been read: the call has ended.
func deploy(t *testing.T, srv *httpServer, token, marker string) (*http.Response, string) {
	return deployInSession(t, srv, "", token, marker)
}

// deployInSession is deploy within the session of ID session ("" for
// none).
func deployInSession(t *testing.T, srv *httpServer, session, token, marker string) (*http.Response, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "deploy", "arguments": map[string]any{"context": "prod", "release": "r1", "marker": marker}}})
	header := map[string]string{"Mcp-Protocol-Version": legacyProtocol}
	if session != "" {
		header["Mcp-Session-Id"] = session
	}
	if token != "" {
		header["Authorization"] = "Bearer " + token
	}
	resp := testsupport.Post(t, srv.url, string(body), header)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(out)
}

// withAlgNone is token re-written as an unsigned JWT: header alg none,
// the same claims, no signature.
func withAlgNone(token string) string {
	parts := strings.Split(token, ".")
	return base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
}

// fisk-mcp with --oauth-issuer admits only access tokens its issuer made
// for it, with the scope it asks, proven against a real authorization
// server; every refused request is refused before any command runs.
func TestOAuthAdmitsOnlyTokensItsIssuerMadeForIt(t *testing.T) {
	issuer := startHydra(t, "")
	another := startHydra(t, "")
	shortLived := startHydra(t, "1s")
	srv := startOAuthServer(t, issuer.issuer, "--stateless")
	expiring := startOAuthServer(t, shortLived.issuer, "--stateless")
	base := strings.TrimSuffix(srv.url, "/mcp")
	metadataURL := base + identity.MetadataPath + "/mcp"

	good := issuer.client(t, "tools read", srv.url, "http://127.0.0.1:1/other")
	// A token signed with a key the issuer has since withdrawn; the server
	// has fetched no keys yet, so it knows only the new ones.
	withdrawn := good.token(t, srv.url, "tools")
	issuer.rotateAccessTokenKey(t)
	expired := shortLived.client(t, "tools", expiring.url).token(t, expiring.url, "tools")
	expiredAt := time.Now()

	valid := good.token(t, srv.url, "tools")
	cases := []struct {
		name   string
		srv    *httpServer
		token  string
		status int
		error  string // the challenge's error; "" for none
		wait   time.Duration
	}{
		{"no token", srv, "", http.StatusUnauthorized, "", 0},
		{"a token for another audience", srv, good.token(t, "http://127.0.0.1:1/other", "tools"), http.StatusUnauthorized, "invalid_token", 0},
		{"a token of another issuer", srv, another.client(t, "tools", srv.url).token(t, srv.url, "tools"), http.StatusUnauthorized, "invalid_token", 0},
		{"a token signed by a withdrawn key", srv, withdrawn, http.StatusUnauthorized, "invalid_token", 0},
		{"an unsigned token (alg none)", srv, withAlgNone(valid), http.StatusUnauthorized, "invalid_token", 0},
		{"a token without the scope", srv, good.token(t, srv.url, "read"), http.StatusForbidden, "insufficient_scope", 0},
		{"an expired token", expiring, expired, http.StatusUnauthorized, "invalid_token", identity.DefaultLeeway + 2*time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.wait > 0 {
				time.Sleep(time.Until(expiredAt.Add(c.wait))) // the token's expiry and the leeway pass
			}
			marker := filepath.Join(t.TempDir(), "deployed")
			resp, _ := deploy(t, c.srv, c.token, marker)
			challenge := resp.Header.Get("WWW-Authenticate")
			if resp.StatusCode != c.status {
				t.Errorf("status %d, want %d (WWW-Authenticate %q)", resp.StatusCode, c.status, challenge)
			}
			wantMeta := `Bearer resource_metadata="` + strings.TrimSuffix(c.srv.url, "/mcp") + identity.MetadataPath + `/mcp"`
			if !strings.HasPrefix(challenge, wantMeta) || !strings.HasSuffix(challenge, `scope="tools"`) {
				t.Errorf("WWW-Authenticate %q, want it to name %s and the scope tools", challenge, wantMeta)
			}
			if got := strings.Contains(challenge, "error="); got != (c.error != "") || !strings.Contains(challenge, `error="`+c.error+`"`) && c.error != "" {
				t.Errorf("WWW-Authenticate %q, want error %q", challenge, c.error)
			}
			if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the command ran for a refused request: %v", err)
			}
		})
	}

	t.Run("a valid token calls a tool", func(t *testing.T) {
		marker := filepath.Join(t.TempDir(), "deployed")
		if resp, body := deploy(t, srv, valid, marker); resp.StatusCode != http.StatusOK || !strings.Contains(body, "deployed r1") {
			t.Fatalf("status %d, %s; want 200 and the command's output", resp.StatusCode, body)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("the admitted call did not run: %v", err)
		}
		rec := srv.log.callRecord(t, "deploy")
		if rec["caller"] != good.id || rec["caller_name"] != good.id {
			t.Errorf("the call's log line names caller %v (%v), want the client %s", rec["caller"], rec["caller_name"], good.id)
		}
	})

	t.Run("the SDK client lists and calls with a valid token", func(t *testing.T) {
		srv.token = valid
		cs := srv.connect(t, client{protocol: legacyProtocol})
		tools, err := cs.ListTools(t.Context(), nil)
		if err != nil || len(tools.Tools) == 0 {
			t.Fatalf("tools/list: %v, %d tools", err, len(tools.Tools))
		}
		marker := filepath.Join(t.TempDir(), "deployed")
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: args("context", "prod", "release", "r2", "marker", marker)})
		if err != nil || res.IsError || !exists(marker) {
			t.Fatalf("tools/call: %v %s", err, text(res))
		}
		if strings.Contains(text(res), valid) {
			t.Errorf("the result carries the caller's token")
		}
		env, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "env", Arguments: args("context", "prod")})
		if err != nil || env.IsError || !strings.Contains(text(env), "PATH=") {
			t.Fatalf("env: %v %s", err, text(env))
		}
		if strings.Contains(text(env), valid) {
			t.Errorf("the command's environment carries the caller's token")
		}
	})

	t.Run("the metadata is served without a token", func(t *testing.T) {
		for _, path := range []string{identity.MetadataPath, identity.MetadataPath + "/mcp"} {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				Resource string   `json:"resource"`
				Servers  []string `json:"authorization_servers"`
				Scopes   []string `json:"scopes_supported"`
				Methods  []string `json:"bearer_methods_supported"`
			}
			err = json.NewDecoder(resp.Body).Decode(&meta)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK || meta.Resource != srv.url || len(meta.Servers) != 1 || meta.Servers[0] != issuer.issuer ||
				strings.Join(meta.Scopes, " ") != "tools" || strings.Join(meta.Methods, " ") != "header" {
				t.Errorf("%s: status %d, %+v (%v), want the resource %s of %s", path, resp.StatusCode, meta, err, srv.url, issuer.issuer)
			}
		}
		if !strings.HasSuffix(metadataURL, "/.well-known/oauth-protected-resource/mcp") {
			t.Errorf("metadata URL %s", metadataURL)
		}
	})

	t.Run("no token reaches the log", func(t *testing.T) {
		for _, s := range []*httpServer{srv, expiring} {
			for _, tok := range []string{valid, withdrawn, expired} {
				if strings.Contains(s.log.String(), tok) {
					t.Errorf("a caller's token is in the server's log")
				}
			}
		}
	})
}

// A session belongs to the caller who opened it: another caller's valid
// token does not reach it.
func TestOAuthSessionStaysWithTheCallerWhoOpenedIt(t *testing.T) {
	issuer := startHydra(t, "")
	srv := startOAuthServer(t, issuer.issuer)
	alice, bob := issuer.client(t, "tools", srv.url), issuer.client(t, "tools", srv.url)
	srv.token = alice.token(t, srv.url, "tools")
	cs := srv.connect(t, client{protocol: legacyProtocol})
	for _, c := range []struct {
		name, token string
		status      int
	}{
		{"another caller", bob.token(t, srv.url, "tools"), http.StatusForbidden},
		{"the caller who opened it", srv.token, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "deployed")
			resp, body := deployInSession(t, srv, cs.ID(), c.token, marker)
			if resp.StatusCode != c.status || exists(marker) != (c.status == http.StatusOK) {
				t.Errorf("status %d (%s), ran %v; want %d", resp.StatusCode, strings.TrimSpace(body), exists(marker), c.status)
			}
		})
	}
}
