package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/identity"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/policy"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// teamsPolicy is docs/teams.md's example: viewers list and call read-only
// tools; ops calls everything.
const teamsPolicy = `
@id("viewers-read-only")
permit (principal in Group::"viewers", action in [Action::"list", Action::"call"], resource)
when { resource.read_only };

@id("ops-everything")
permit (principal in Group::"ops", action, resource);
`

// withPolicy is a server over the fixture, deferred, under teamsPolicy,
// served over streamable HTTP behind a verifier that admits the bearer
// tokens "viewer" and "ops" as OAuth callers of those groups, exactly as
// identity puts a caller on the request's context.
func withPolicy(t *testing.T) (*Server, *logBuffer, func(token string) *mcp.ClientSession) {
	t.Helper()
	p, err := policy.Parse("teams.cedar", []byte(teamsPolicy), policy.Claims{})
	if err != nil {
		t.Fatal(err)
	}
	s, logs := newServer(t, Config{Defer: DeferAlways, Policy: policy.NewCurrent(p)}, fixtureSet(t, exposure.Policy{}))
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		group, ok := map[string]string{"viewer": "viewers", "ops": "ops"}[token]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return identity.TokenInfo(&identity.Caller{Issuer: "https://auth.example.com/", Subject: token,
			Expiry: time.Now().Add(time.Hour), Claims: map[string]any{"groups": []any{group}}}), nil
	}
	h := auth.RequireBearerToken(verify, nil)(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return s, logs, func(token string) *mcp.ClientSession {
		client := &http.Client{Transport: bearerTransport{token}}
		tr := &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: client}
		return testsupport.ConnectClient(t, mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil), tr, modernVersion)
	}
}

func TestAViewerSeesAndCallsOnlyReadOnlyTools(t *testing.T) {
	_, logs, as := withPolicy(t)
	viewer, ops := as("viewer"), as("ops")

	vList, oList := testsupport.ListTools(t, viewer), testsupport.ListTools(t, ops)
	if _, ok := vList["deploy"]; ok {
		t.Error("the viewer's tools/list has deploy, which is not read-only")
	}
	if _, ok := oList["deploy"]; !ok {
		t.Error("the ops caller's tools/list lacks deploy (ai:no_defer)")
	}
	if vList["search_tools"].Description == oList["search_tools"].Description {
		t.Error("search_tools describes the same tools to the viewer as to ops")
	}

	search := func(cs *mcp.ClientSession) string {
		return text(call(t, cs, "search_tools", map[string]any{"query": "deploy a release to production", "limit": 50}))
	}
	if got := search(viewer); strings.Contains(got, "- deploy:") || strings.Contains(got, "destructive") {
		t.Errorf("the viewer's search finds tools that are not read-only:\n%s", got)
	}
	if got := search(ops); !strings.Contains(got, "- deploy:") {
		t.Errorf("the ops caller's search does not find deploy:\n%s", got)
	}

	describe := func(cs *mcp.ClientSession) *mcp.CallToolResult {
		return call(t, cs, "describe_tools", map[string]any{"names": []string{"deploy"}})
	}
	if res := describe(viewer); !res.IsError || strings.Contains(text(res), `"inputSchema"`) {
		t.Errorf("describe_tools described deploy to the viewer: %s", text(res))
	}
	if res := describe(ops); res.IsError {
		t.Errorf("describe_tools did not describe deploy to ops: %s", text(res))
	}

	// A call of a tool the viewer may not call is a call of a tool that
	// does not exist, directly and through an executor, and runs nothing.
	marker := tempPath(t, "deployed")
	args := map[string]any{"context": "test", "release": "v1", "marker": marker}
	_, err := viewer.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: args})
	_, errMissing := viewer.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: args})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "deploy"`) || errMissing == nil {
		t.Errorf("the viewer's direct call of deploy: %v, want unknown tool like a missing one (%v)", err, errMissing)
	}
	if res := through(t, viewer, "call_tool", "deploy", args); !res.IsError || !strings.Contains(text(res), `unknown tool "deploy"`) {
		t.Errorf("the viewer's call_tool deploy: %s", text(res))
	}
	if exists(t, marker) {
		t.Fatal("deploy ran for the viewer")
	}
	for _, r := range logs.records("tool call") {
		if r["tool"] == "deploy" && r["result"] != string(ResultUnknownTool) {
			t.Errorf("the viewer's deploy logged %v, want %s", r["result"], ResultUnknownTool)
		}
	}

	// A read-only tool runs for the viewer; deploy runs for ops.
	if res := call(t, viewer, "echo", map[string]any{"context": "test", "subject": "hi"}); res.IsError {
		t.Errorf("the viewer's echo failed: %s", text(res))
	}
	if res := through(t, ops, "call_tool", "deploy", args); res.IsError || !exists(t, marker) {
		t.Errorf("deploy did not run for ops: %s", text(res))
	}
}

func TestAUnknownNameSuggestsOnlyToolsTheCallerMaySee(t *testing.T) {
	_, _, as := withPolicy(t)
	_, err := as("viewer").CallTool(t.Context(), &mcp.CallToolParams{Name: "deplo"})
	if err == nil || strings.Contains(err.Error(), "deploy") {
		t.Errorf("the viewer's call of deplo: %v, want no suggestion of deploy", err)
	}
	_, err = as("ops").CallTool(t.Context(), &mcp.CallToolParams{Name: "deplo"})
	if err == nil || !strings.Contains(err.Error(), "did you mean deploy") {
		t.Errorf("the ops caller's call of deplo: %v, want deploy suggested", err)
	}
}

func TestWithAPolicyTheLocalCallerGetsOnlyWhatItIsPermitted(t *testing.T) {
	p, err := policy.Parse("p.cedar", []byte(teamsPolicy), policy.Claims{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newServer(t, Config{Defer: DeferNever, Policy: policy.NewCurrent(p)}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, modernVersion, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 0 || res.CacheScope != "private" {
		t.Errorf("the local caller, whom no policy names, lists %d tools (cache scope %q), want none, private", len(res.Tools), res.CacheScope)
	}
}

// The shared bearer token's caller and the local one are principals of
// their own: a policy gives them what it names them for, and nothing a
// user is given.
func TestTheStaticAndLocalCallersAreTheirOwnPrincipals(t *testing.T) {
	const src = `permit (principal == Caller::"static", action, resource) when { resource.read_only };
permit (principal in Group::"ops", action, resource);`
	p, err := policy.Parse("p.cedar", []byte(src), policy.Claims{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newServer(t, Config{Defer: DeferNever, Policy: policy.NewCurrent(p)}, fixtureSet(t, exposure.Policy{}))
	base, _ := serveHTTP(t, s, HTTPConfig{Token: "a-long-enough-shared-token"})
	static := testsupport.ListTools(t, connectHTTP(t, base, "a-long-enough-shared-token", modernVersion, nil))
	if _, ok := static["deploy"]; ok || len(static) == 0 {
		t.Errorf("the static caller lists %d tools, deploy among them: %v", len(static), static["deploy"] != nil)
	}
	for name, tool := range static {
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("the static caller lists %s, which is not read-only", name)
		}
	}
	if local := testsupport.ListTools(t, connect(t, s, modernVersion, nil)); len(local) != 0 {
		t.Errorf("the local caller, whom the policy does not name, lists %d tools", len(local))
	}
}

func TestPolicyChangedTellsClientsTheListChanged(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	opts, changed, _ := listChangedClient(legacyVersion)
	cs := connect(t, s, legacyVersion, opts)
	before := testsupport.ListTools(t, cs)
	s.PolicyChanged()
	wait(t, changed, "notifications/tools/list_changed")
	if after := testsupport.ListTools(t, cs); len(after) != len(before) {
		t.Errorf("the list went from %d tools to %d, with nothing changed", len(before), len(after))
	}
}
