package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// The authorization server the OAuth tests get tokens from: ORY Hydra,
// built from source into the test tool cache on first use.
const (
	hydraVersion = "v2.3.0"
	// hydraPop is the fork of gobuffalo/pop Hydra's own build uses.
	hydraPop = "github.com/ory/pop/v6@v6.2.1-0.20241121111754-e5dfc0f3344b"
)

var hydraBinary = sync.OnceValues(func() (string, error) {
	dir, err := testsupport.InstallTool("hydra", hydraVersion, installHydra)
	return filepath.Join(dir, "hydra"), err
})

// installHydra builds Hydra (with SQLite, for its in-memory database) in a
// throwaway module of its own, so that none of its dependencies touch
// fisk-mcp's go.mod.
func installHydra(dir string) error {
	return goInModule("hydrabuild", []string{"CGO_ENABLED=1"},
		[]string{"get", "-tool", "github.com/ory/hydra/v2@" + hydraVersion},
		[]string{"mod", "edit", "-replace", "github.com/gobuffalo/pop/v6=" + hydraPop},
		[]string{"mod", "tidy"},
		[]string{"build", "-tags", "sqlite", "-o", filepath.Join(dir, "hydra"), "github.com/ory/hydra/v2"})
}

// goInModule runs the go commands steps, with env added, in a throwaway
// module named name: a tool built there touches nothing of fisk-mcp's
// go.mod.
func goInModule(name string, env []string, steps ...[]string) error {
	mod, err := os.MkdirTemp("", name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(mod)
	for _, args := range append([][]string{{"mod", "init", name}}, steps...) {
		cmd := exec.Command("go", args...)
		cmd.Dir = mod
		cmd.Env = append(append(os.Environ(), "GOWORK=off", "GOFLAGS="), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// hydra is one Hydra serving on loopback with an in-memory database and
// JWT access tokens.
type hydra struct {
	issuer string // the public URL, its issuer identifier
	admin  string
	people *loginProvider // its login and consent app
}

// startHydra starts a Hydra whose access tokens live ttl ("" for Hydra's
// default), and stops it at cleanup.
func startHydra(t *testing.T, ttl string) *hydra {
	t.Helper()
	bin, err := hydraBinary()
	testsupport.RequireTool(t, "OAuth against Hydra", err)
	public, admin := freePort(t), freePort(t)
	h := &hydra{issuer: "http://127.0.0.1:" + public + "/", admin: "http://127.0.0.1:" + admin}
	h.people = newLoginProvider(t, h.issuer, h.admin)
	cmd := exec.Command(bin, "serve", "all", "--dev", "--sqa-opt-out")
	cmd.Env = append(os.Environ(),
		"DSN=memory", "STRATEGIES_ACCESS_TOKEN=jwt", "SECRETS_SYSTEM=a-system-secret-for-tests-only-000",
		"URLS_SELF_ISSUER="+h.issuer, "SERVE_PUBLIC_HOST=127.0.0.1", "SERVE_PUBLIC_PORT="+public,
		"SERVE_ADMIN_HOST=127.0.0.1", "SERVE_ADMIN_PORT="+admin, "LOG_LEVEL=warn",
		"URLS_LOGIN="+h.people.srv.URL+"/login", "URLS_CONSENT="+h.people.srv.URL+"/consent",
		"OIDC_DYNAMIC_CLIENT_REGISTRATION_ENABLED=true", "OAUTH2_ALLOWED_TOP_LEVEL_CLAIMS=groups,email",
		// Without it the discovery document names no registration_endpoint,
		// and clients that register themselves give up; see register.
		"WEBFINGER_OIDC_DISCOVERY_CLIENT_REGISTRATION_URL="+h.people.srv.URL+"/register")
	if ttl != "" {
		cmd.Env = append(cmd.Env, "TTL_ACCESS_TOKEN="+ttl)
	}
	startService(t, "Hydra", cmd, h.issuer+"health/ready")
	return h
}

// startService starts cmd, a server the tests need, and waits until ready
// (a URL) answers 200; it stops the server at cleanup, showing its output
// when the test failed or the server exited early.
func startService(t *testing.T, what string, cmd *exec.Cmd, ready string) {
	t.Helper()
	out := newLogBuffer()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("%s output:\n%s", what, out.String())
		}
	})
	waitFor(t, what+" to be ready", func() bool {
		select {
		case <-exited:
			t.Fatalf("%s exited: %v\n%s", what, waitErr, out.String())
		default:
		}
		resp, err := http.Get(ready)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// freePort is a port free on 127.0.0.1 a moment ago: Hydra takes its ports
// as numbers.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// hydraClient is an OAuth client registered with a Hydra.
type hydraClient struct {
	h          *hydra
	id, secret string
}

// client registers a client that may use the client credentials grant
// for the audiences with scope.
func (h *hydra) client(t *testing.T, scope string, audiences ...string) hydraClient {
	t.Helper()
	var out struct {
		ID     string `json:"client_id"`
		Secret string `json:"client_secret"`
	}
	h.adminJSON(t, http.MethodPost, "/admin/clients", map[string]any{
		"grant_types": []string{"client_credentials"}, "audience": audiences, "scope": scope,
		"token_endpoint_auth_method": "client_secret_post",
	}, &out)
	return hydraClient{h: h, id: out.ID, secret: out.Secret}
}

// token gets an access token for audience with scope.
func (c hydraClient) token(t *testing.T, audience, scope string) string {
	t.Helper()
	resp, err := http.PostForm(c.h.issuer+"oauth2/token", url.Values{
		"grant_type": {"client_credentials"}, "client_id": {c.id}, "client_secret": {c.secret},
		"audience": {audience}, "scope": {scope},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.AccessToken == "" {
		t.Fatalf("getting a token: status %d, %v", resp.StatusCode, err)
	}
	return out.AccessToken
}

// rotateAccessTokenKey makes Hydra sign access tokens with a new key and
// withdraws every key it signed them with before.
func (h *hydra) rotateAccessTokenKey(t *testing.T) {
	t.Helper()
	const set = "/admin/keys/hydra.jwt.access-token"
	var old struct {
		Keys []struct {
			KID string `json:"kid"`
		} `json:"keys"`
	}
	h.adminJSON(t, http.MethodGet, set, nil, &old)
	h.adminJSON(t, http.MethodPost, set, map[string]any{"alg": "RS256", "use": "sig", "kid": "rotated"}, nil)
	for _, k := range old.Keys {
		h.adminJSON(t, http.MethodDelete, set+"/"+k.KID, nil, nil)
	}
}

// adminJSON calls Hydra's admin API, sending body and decoding the answer
// into out (either may be nil).
func (h *hydra) adminJSON(t *testing.T, method, path string, body, out any) {
	t.Helper()
	var rd *strings.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	} else {
		rd = strings.NewReader("")
	}
	req, _ := http.NewRequestWithContext(t.Context(), method, h.admin+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: status %d", method, path, resp.StatusCode)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}
