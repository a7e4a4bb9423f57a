package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// The official MCP conformance suite, run against the built binary where
// npm can install it (the suite needs Node 22, which npm installs as a
// package too). Only the checks that apply to a server of tools are
// required: most of the suite's scenarios call diagnostic tools and prompts
// of its reference server, which a CLI's tools are not.
const conformancePackage = "@modelcontextprotocol/conformance@0.2.0-alpha.12"

const conformanceSuite = "MCP conformance suite (npm)"

// conformance installs the suite into a scratch directory and returns the
// node binary and the suite's entry point; it skips the test when npm is
// missing or cannot reach its registry.
func conformance(t *testing.T) (node, suite string) {
	t.Helper()
	if testing.Short() {
		testsupport.Skip(t, conformanceSuite, "the conformance suite is installed from npm; skipped with -short")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		testsupport.Skip(t, conformanceSuite, "npm is not installed; the conformance suite needs it")
	}
	dir := t.TempDir()
	install := exec.CommandContext(t.Context(), npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "node@22", conformancePackage)
	if out, err := install.CombinedOutput(); err != nil {
		testsupport.Skip(t, conformanceSuite, fmt.Sprintf("npm could not install the conformance suite (%v):\n%s", err, out))
	}
	testsupport.Ran(conformanceSuite)
	node = filepath.Join(dir, "node_modules", "node", "bin", "node")
	suite = filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	return node, suite
}

// runScenario runs one server scenario of the suite against url and returns
// the status of each of its checks by id.
func runScenario(t *testing.T, node, suite, url, scenario string) map[string]string {
	t.Helper()
	out := t.TempDir()
	cmd := exec.CommandContext(t.Context(), node, suite, "server", "--url", url, "--scenario", scenario, "--spec-version", modernProtocol, "-o", out)
	log, _ := cmd.CombinedOutput() // failing checks exit non-zero; they are judged below
	files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("scenario %s wrote %d checks.json files:\n%s", scenario, len(files), log)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []struct{ ID, Status, ErrorMessage string }
	if err := json.Unmarshal(data, &checks); err != nil {
		t.Fatalf("checks of %s: %v", scenario, err)
	}
	status := map[string]string{}
	for _, c := range checks {
		status[c.ID] = c.Status
		if c.Status == "FAILURE" {
			t.Logf("%s: %s failed: %s", scenario, c.ID, c.ErrorMessage)
		}
	}
	return status
}

func TestConformanceSuiteServerStateless(t *testing.T) {
	node, suite := conformance(t)
	for _, mode := range []struct {
		name  string
		flags []string
		must  []string
	}{
		{"stateless", []string{"--stateless"}, []string{
			"sep-2575-server-implements-discover",
			"sep-2575-server-declares-prompts-in-discover",
			"sep-2575-discover-capabilities-match-handlers",
			"sep-2575-server-unsupported-version-error",
		}},
		{"stateful", nil, []string{
			"sep-2575-server-implements-discover",
			"sep-2575-server-unsupported-version-error",
			"sep-2575-http-server-header-mismatch-400",
		}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			srv := startHTTP(t, "", mode.flags...)
			status := runScenario(t, node, suite, srv.url, "server-stateless")
			for _, id := range mode.must {
				if status[id] != "SUCCESS" {
					t.Errorf("check %s: %q, want SUCCESS", id, status[id])
				}
			}
		})
	}
}
