package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// With --policy, real Hydra tokens decide who sees and runs what. Hydra's
// client-credentials tokens carry no groups, so the policy reads the
// client_id claim as the caller's group (--policy-groups-claim client_id):
// the viewer client's tools are the read-only ones, the ops client's all.
// People signed in with their groups claim are in oauth_clients_test.go.
func TestPolicyGivesEachHydraCallerItsOwnTools(t *testing.T) {
	issuer := startHydra(t, "")
	url := "http://127.0.0.1:" + freePort(t) + "/mcp"
	viewer, ops := issuer.client(t, "tools", url), issuer.client(t, "tools", url)
	policy := filepath.Join(t.TempDir(), "team.cedar")
	src := fmt.Sprintf(`@id("viewers-read-only")
permit (principal in Group::%q, action in [Action::"list", Action::"call"], resource) when { resource.read_only };
@id("ops-everything")
permit (principal in Group::%q, action, resource);
`, viewer.id, ops.id)
	if err := os.WriteFile(policy, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	cmd := exec.Command(fiskMCP, serveArgs("--http", addr, "--oauth-issuer", issuer.issuer, "--oauth-scope", "tools",
		"--policy", policy, "--policy-groups-claim", "client_id", fixtureBin)...)
	cmd.Env = append(os.Environ(), "FISK_MCP_TOKEN=")
	srv := startHTTPCommand(t, cmd, "")

	session := func(c hydraClient) *mcp.ClientSession {
		srv.token = c.token(t, url, "tools")
		return srv.connect(t, client{protocol: legacyProtocol})
	}
	names := func(cs *mcp.ClientSession) map[string]bool {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, tool := range res.Tools {
			out[tool.Name] = true
		}
		return out
	}
	v, o := session(viewer), session(ops)
	vTools, oTools := names(v), names(o)
	if vTools["deploy"] || !vTools["echo"] || !oTools["deploy"] || len(vTools) >= len(oTools) {
		t.Errorf("the viewer lists %v, ops %v: want deploy for ops only, echo for both", vTools, oTools)
	}

	marker := filepath.Join(t.TempDir(), "deployed")
	deployArgs := args("context", "prod", "release", "r1", "marker", marker)
	if _, err := v.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: deployArgs}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("the viewer's deploy: %v, want unknown tool", err)
	}
	if exists(marker) {
		t.Fatal("deploy ran for the viewer")
	}
	res, err := o.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: deployArgs})
	if err != nil || res.IsError || !exists(marker) {
		t.Fatalf("the ops client's deploy: %v %s", err, text(res))
	}
}
