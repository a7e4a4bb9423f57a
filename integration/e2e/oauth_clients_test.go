package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/chromium"
)

// The MCP clients that sign in with OAuth here, installed from npm at
// pinned versions with Node 22.
var (
	tsSDK     = realClient{pkg: "@modelcontextprotocol/sdk", ver: "1.32.2", node22: true}
	mcpRemote = realClient{pkg: "mcp-remote", ver: "0.15.1", node22: true, bin: "mcp-remote"}
)

// teamPolicy is the policy of the docs' example: viewers list and call
// the read-only tools, ops everything.
const teamPolicy = `@id("viewers-read-only")
permit (principal in Group::"viewers", action in [Action::"list", Action::"call"], resource) when { resource.read_only };
@id("ops-everything")
permit (principal in Group::"ops", action in [Action::"list", Action::"call"], resource);
`

var (
	viewer = signer{Subject: "alice", Email: "alice@example.com", Groups: []string{"viewers"}}
	ops    = signer{Subject: "bob", Email: "bob@example.com", Groups: []string{"ops"}}
)

// startTeamServer starts a Hydra and a fisk-mcp admitting its tokens
// under teamPolicy, with every tool but deploy deferred.
func startTeamServer(t *testing.T) (*hydra, *httpServer) {
	t.Helper()
	h := startHydra(t, "")
	policy := filepath.Join(t.TempDir(), "team.cedar")
	if err := os.WriteFile(policy, []byte(teamPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	return h, startOAuthServer(t, h.issuer, "--policy", policy, "--defer", "always")
}

// signIn is the person's browser, a headless Chromium, at the
// authorization URL raw a client opened: it follows the authorization
// server through its login and consent pages back to the client's
// callback. It returns the URL.
func signIn(t *testing.T, browser context.Context, raw string) *url.URL {
	t.Helper()
	tab, closeTab := chromium.NewTab(t, browser)
	defer closeTab()
	if status := chromium.Navigate(t, tab, raw); status != 200 {
		t.Fatalf("the sign-in ended at %s, status %d: %s", chromium.Eval[string](t, tab, "location.href"), status, chromium.Eval[string](t, tab, "document.body.innerText"))
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// checkAuthorizationRequest fails t unless u asks for a code with PKCE
// (S256) for the resource.
func checkAuthorizationRequest(t *testing.T, u *url.URL, resource string) {
	t.Helper()
	q := u.Query()
	if q.Get("response_type") != "code" || q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256" || q.Get("resource") != resource {
		t.Errorf("the authorization request %s lacks a code with PKCE S256 for the resource %s", u.Redacted(), resource)
	}
}

// tsReport is what oauth.mjs reports, line by line.
type tsReport struct {
	fetched    []string
	registered string
	tools      []string
	calls      map[string]tsCall
}

// tsCall is the answer to one call: a result, or the error thrown.
type tsCall struct {
	IsError     bool
	Text, Error string
}

// runTSClient runs tools/tsclient/oauth.mjs against srv as the person who,
// signed in through the browser, makes the calls, and returns its report
// and the authorization URL it opened.
func runTSClient(t *testing.T, dir string, srv *httpServer, browser context.Context, calls []map[string]any) (tsReport, *url.URL) {
	t.Helper()
	// ESM resolves imports from the script's own folder.
	work := t.TempDir()
	script, err := os.ReadFile(filepath.Join("..", "..", "tools", "tsclient", "oauth.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "oauth.mjs"), script, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	o := newPageOpener(t)
	callsJSON, _ := json.Marshal(calls)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "node_modules", "node", "bin", "node"), "oauth.mjs", srv.url, o.script, string(callsJSON))
	cmd.Dir = work
	stdout, stderr := newLogBuffer(), newLogBuffer()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var authorize *url.URL
	select {
	case err := <-done:
		t.Fatalf("oauth.mjs ended before opening the browser: %v\n%s%s", err, stdout.String(), stderr.String())
	case raw := <-o.urls:
		authorize = signIn(t, browser, raw)
	case <-time.After(patience):
		t.Fatalf("oauth.mjs did not open the browser in %v:\n%s%s", patience, stdout.String(), stderr.String())
	}
	if err := <-done; err != nil {
		t.Fatalf("oauth.mjs: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	rep := tsReport{calls: map[string]tsCall{}}
	sc := bufio.NewScanner(strings.NewReader(stdout.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Fetch, Registered, Call, Text, Error string
			Tools                                []string
			IsError                              bool
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("oauth.mjs printed %q: %v", sc.Text(), err)
		}
		switch {
		case line.Fetch != "":
			rep.fetched = append(rep.fetched, line.Fetch)
		case line.Registered != "":
			rep.registered = line.Registered
		case line.Tools != nil:
			rep.tools = line.Tools
		case line.Call != "":
			rep.calls[line.Call] = tsCall{line.IsError, line.Text, line.Error}
		}
	}
	return rep, authorize
}

// The TypeScript SDK's client, with its own OAuth provider, signs in to
// fisk-mcp through Hydra as each person in turn: from the 401 it finds
// the resource metadata, then Hydra's metadata, registers itself, sends
// the browser (a headless Chromium) to sign in with PKCE and the resource,
// exchanges the code and calls. What each person gets follows the
// policy by their groups: the viewer's list and search lack deploy and
// its direct call runs nothing; the ops person's deploy runs, and the log
// names them.
func TestTypeScriptSDKClientSignsInThroughHydraAndGetsWhatItsGroupsAllow(t *testing.T) {
	dir, err := tsSDK.install()
	testsupport.RequireTool(t, "TypeScript SDK OAuth client (npm)", err)
	browser := chromium.Start(t)
	h, srv := startTeamServer(t)
	base := strings.TrimSuffix(srv.url, "/mcp")

	for _, c := range []struct {
		who    signer
		deploy bool
	}{{viewer, false}, {ops, true}} {
		t.Run(c.who.Subject, func(t *testing.T) {
			h.people.signInAs(c.who)
			marker := filepath.Join(t.TempDir(), "deployed")
			rep, authorize := runTSClient(t, dir, srv, browser, []map[string]any{
				{"name": "search_tools", "arguments": map[string]any{"query": "deploy a release", "limit": 50}},
				{"name": "deploy", "arguments": args("context", "prod", "release", "r1", "marker", marker)},
			})
			checkAuthorizationRequest(t, authorize, srv.url)
			for _, want := range []string{
				"POST " + srv.url, // answered 401
				"GET " + base + "/.well-known/oauth-protected-resource/mcp",
				"GET " + h.issuer + ".well-known/openid-configuration",
				"POST " + h.people.srv.URL + "/register",
				"POST " + h.issuer + "oauth2/token",
			} {
				if !containsPrefix(rep.fetched, want) {
					t.Errorf("the client never requested %s; it requested:\n%s", want, strings.Join(rep.fetched, "\n"))
				}
			}
			if rep.registered == "" {
				t.Error("the client did not register itself")
			}
			search, deploy := rep.calls["search_tools"], rep.calls["deploy"]
			if search.IsError {
				t.Errorf("search_tools: %s", search.Text)
			}
			checkTeamRights(t, srv, c.who, c.deploy, rep.tools, search.Text, deploy.Error+deploy.Text, marker)
		})
	}
}

// checkTeamRights fails t unless what who got follows teamPolicy: the
// list of tools, the text of a search for deploy, the answer to a call of
// deploy asked to create marker, and the call's log line.
func checkTeamRights(t *testing.T, srv *httpServer, who signer, mayDeploy bool, tools []string, search, deployed, marker string) {
	t.Helper()
	if listed := slices.Contains(tools, "deploy"); listed != mayDeploy || len(tools) == 0 {
		t.Errorf("%s lists %v: deploy there %v, want %v", who.Subject, tools, listed, mayDeploy)
	}
	if found := strings.Contains(search, "- deploy:"); found != mayDeploy {
		t.Errorf("%s's search finds deploy %v, want %v: %s", who.Subject, found, mayDeploy, search)
	}
	if ran := exists(marker); ran != mayDeploy {
		t.Fatalf("%s's deploy ran %v, want %v: %s", who.Subject, ran, mayDeploy, deployed)
	}
	if !mayDeploy && !strings.Contains(deployed, "unknown tool") {
		t.Errorf("%s's deploy was answered %q, want unknown tool", who.Subject, deployed)
	}
	rec := srv.log.waitRecord(t, "the log line of "+who.Subject+"'s deploy", func(r map[string]any) bool {
		return isFinalCall(r, "deploy") && r["caller"] == who.Subject
	})
	if want := map[bool]string{true: "ok", false: "unknown_tool"}[mayDeploy]; rec["result"] != want || rec["caller_name"] != who.Email {
		t.Errorf("the deploy's log line: %v, want %s for %s (%s)", rec, want, who.Subject, who.Email)
	}
}

// mcp-remote bridges a stdio client (the Go SDK's) to fisk-mcp: it meets
// the 401, registers with Hydra, opens the person's browser through the
// desktop's opener (here $BROWSER, a headless Chromium), takes the code
// at its callback, keeps the tokens in ~/.mcp-auth of the home it is
// given, and passes the client's calls on. What each person gets follows
// the policy by their groups.
func TestMCPRemoteBridgesAStdioClientThatSignsInThroughHydra(t *testing.T) {
	dir, err := mcpRemote.install()
	testsupport.RequireTool(t, "mcp-remote OAuth bridge (npm)", err)
	browser := chromium.Start(t)
	h, srv := startTeamServer(t)

	for _, c := range []struct {
		who    signer
		deploy bool
	}{{viewer, false}, {ops, true}} {
		t.Run(c.who.Subject, func(t *testing.T) {
			h.people.signInAs(c.who)
			home, o := t.TempDir(), newPageOpener(t)
			cmd := exec.Command(filepath.Join(dir, "node_modules", "node", "bin", "node"), filepath.Join(dir, "node_modules", ".bin", "mcp-remote"), srv.url)
			// No desktop: the opener mcp-remote uses (xdg-open) falls back
			// to $BROWSER.
			cmd.Env = append(os.Environ(), "HOME="+home, "MCP_REMOTE_CONFIG_DIR=", "BROWSER="+o.script,
				"DISPLAY=", "WAYLAND_DISPLAY=", "XDG_CURRENT_DESKTOP=", "XDG_SESSION_DESKTOP=", "DESKTOP_SESSION=")
			stderr := newLogBuffer()
			cmd.Stderr = stderr
			type connected struct {
				cs  *mcp.ClientSession
				err error
			}
			sessions := make(chan connected, 1)
			go func() {
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
				sessions <- connected{cs, err}
			}()
			var raw string
			select {
			case raw = <-o.urls:
			case <-time.After(patience):
				t.Fatalf("mcp-remote did not open the browser in %v:\n%s", patience, stderr.String())
			}
			checkAuthorizationRequest(t, signIn(t, browser, raw), srv.url)
			conn := await(t, sessions, "the session through mcp-remote")
			if conn.err != nil {
				t.Fatalf("connecting through mcp-remote: %v\n%s", conn.err, stderr.String())
			}
			cs := conn.cs
			t.Cleanup(func() { cs.Close() })
			// What it registered and the tokens it got, kept in the home it
			// was given.
			for _, kept := range []string{"client_info.json", "tokens.json"} {
				if found, _ := filepath.Glob(filepath.Join(home, ".mcp-auth", "*", "*_"+kept)); len(found) != 1 {
					t.Errorf("mcp-remote kept %d %s in %s/.mcp-auth, want 1", len(found), kept, home)
				}
			}

			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			search, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "deploy a release", "limit": 50}})
			if err != nil || search.IsError {
				t.Fatalf("search_tools: %v %s", err, text(search))
			}
			marker := filepath.Join(t.TempDir(), "deployed")
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: args("context", "prod", "release", "r1", "marker", marker)})
			deployed := fmt.Sprint(err)
			if err == nil {
				deployed = text(res)
			}
			checkTeamRights(t, srv, c.who, c.deploy, names, text(search), deployed, marker)
		})
	}
}

// containsPrefix reports whether any of lines begins with prefix.
func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}
