package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/clients"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// runFiskMCP runs fisk-mcp with args in this process, with exe as its own
// executable, and returns its stdout and stderr.
func runFiskMCP(t *testing.T, exe string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := newCLI(t.Context(), &out, &errOut)
	c.executable = func() (string, error) { return exe, nil }
	c.app.Terminate(func(code int) { t.Fatalf("terminated with %d: %s", code, errOut.String()) })
	_, err = c.app.Parse(args)
	return out.String(), errOut.String(), err
}

// The configuration of every client, for the fixture app (whose touch is
// gated by ai:confirm), passes --approval=browser exactly to the clients
// that cannot ask their person, and says why on stderr; without gated
// tools it passes nothing and says nothing of approval; a person's own
// --approval stays, with a note where it cannot work; --install and the
// bundle carry the same arguments.
func TestClientConfigurationsChooseApprovalByTheClient(t *testing.T) {
	app, cleanup, err := testsupport.BuildFixture()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	const exe = "/opt/fisk-mcp/bin/fisk-mcp"

	for _, name := range clients.Names {
		c := clients.Known[name]
		t.Run(name, func(t *testing.T) {
			out, errOut, err := runFiskMCP(t, exe, "config", name, app)
			if err != nil {
				t.Fatal(err)
			}
			browser := c.Approval() == clients.ApprovalBrowser
			if got := strings.Contains(out, "--approval=browser"); got != browser {
				t.Errorf("passes --approval=browser: %v, want %v:\n%s", got, browser, out)
			}
			if strings.Contains(out, "--approval=elicit") {
				t.Errorf("passes the default --approval elicit:\n%s", out)
			}
			want := "note: " + c.Label + " asks through MCP elicitation, so gated tools are approved in " + c.Label + " itself (--approval elicit, the default)"
			if browser {
				want = "so gated tools are approved in your browser (--approval=browser): a page opens on this machine when one is called"
			}
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}

			out, errOut, err = runFiskMCP(t, exe, "config", name, "--include", "^echo$", app)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out, "--approval") || strings.Contains(errOut, "approv") {
				t.Errorf("without gated tools, approval is set or mentioned:\n%s\n%s", out, errOut)
			}
		})
	}

	t.Run("a chosen mode stays", func(t *testing.T) {
		out, errOut, err := runFiskMCP(t, exe, "config", "claude-desktop", "--approval", "elicit", app)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, `"--approval=elicit"`) || strings.Contains(out, "--approval=browser") {
			t.Errorf("the person's --approval elicit is not kept alone:\n%s", out)
		}
		if want := "note: the server keeps your --approval elicit: Claude Desktop cannot ask through MCP (it declares no elicitation), so gated tools are refused: pass --approval browser"; !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}

		dir := t.TempDir()
		cfg := writeFile(t, dir, "fisk-mcp.yaml", "approval: elicit-or-browser\n", 0o600)
		out, errOut, err = runFiskMCP(t, exe, "config", "codex", "--config", cfg, app)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "--approval") {
			t.Errorf("the file's approval is overridden:\n%s", out)
		}
		if want := "keeps your --approval elicit-or-browser: Codex advertises MCP elicitation but declines every question, so gated calls are refused as declined"; !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	})

	t.Run("install", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "mcp.json")
		_, errOut, err := runFiskMCP(t, exe, "config", "cursor", "--install", "--client-config", file, app)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil || !strings.Contains(string(data), `"--approval=browser"`) {
			t.Errorf("the installed entry lacks --approval=browser (%v):\n%s", err, data)
		}
		if !strings.Contains(errOut, "Cursor declares MCP elicitation but drops its requests from stdio servers, so gated tools are approved in your browser") {
			t.Errorf("stderr does not say why:\n%s", errOut)
		}
	})

	t.Run("bundle", func(t *testing.T) {
		got, errOut := bundleArgs(t, app)
		if !slices.Contains(got, "--approval=browser") {
			t.Errorf("the manifest's args %q lack --approval=browser", got)
		}
		if !strings.Contains(errOut, "note: Claude Desktop cannot ask through MCP (it declares no elicitation), so gated tools are approved in your browser") || strings.Contains(errOut, "refused") {
			t.Errorf("stderr does not say the gated tools are approved in the browser:\n%s", errOut)
		}
		got, errOut = bundleArgs(t, app, "--approval", "elicit")
		if slices.Contains(got, "--approval=browser") || !slices.Contains(got, "--approval=elicit") || !strings.Contains(errOut, "so gated tools are refused") {
			t.Errorf("the person's --approval elicit is not kept alone: %q\n%s", got, errOut)
		}
		got, errOut = bundleArgs(t, app, "--include", "^echo$")
		if strings.Contains(strings.Join(got, " ")+errOut, "approv") {
			t.Errorf("without gated tools: %q\n%s", got, errOut)
		}
	})
}

// bundleArgs writes a bundle of app with fisk-mcp bundle and extra, and
// returns its manifest's server arguments and the command's stderr.
func bundleArgs(t *testing.T, app string, extra ...string) ([]string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "fixture.mcpb")
	_, errOut, err := runFiskMCP(t, app, append(append([]string{"bundle", "-o", out, "--bundle-version", "1.0.0"}, extra...), app)...)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := zr.Open("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var m struct {
		Server struct {
			MCPConfig struct{ Args []string } `json:"mcp_config"`
		}
	}
	if err := json.NewDecoder(f).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m.Server.MCPConfig.Args, errOut
}

// --approval-opener goes with browser approval: config accepts it for
// every client whose approval it turns to the browser, with or without
// gated tools (serve needs the mode beside it), and bundle too; for a
// client that asks, it is refused as it is by serve.
func TestApprovalOpenerIsAcceptedWhereConfigApprovesInTheBrowser(t *testing.T) {
	app, cleanup, err := testsupport.BuildFixture()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	const exe = "/opt/fisk-mcp/bin/fisk-mcp"
	for _, name := range clients.Names {
		browser := clients.Known[name].Approval() == clients.ApprovalBrowser
		for _, sel := range [][]string{nil, {"--include", "^echo$"}} {
			t.Run(name+strings.Join(sel, ""), func(t *testing.T) {
				args := append(append([]string{"config", name, "--approval-opener", "firefox --new-window"}, sel...), app)
				out, errOut, err := runFiskMCP(t, exe, args...)
				if !browser {
					if err == nil || !strings.Contains(err.Error(), "only applies when approvals are asked in the browser") {
						t.Fatalf("%s asks itself, yet --approval-opener gave %v:\n%s", name, err, out)
					}
					return
				}
				if err != nil {
					t.Fatalf("%v\n%s", err, errOut)
				}
				for _, want := range []string{"--approval-opener=firefox --new-window", "--approval=browser"} {
					if !strings.Contains(out, want) {
						t.Errorf("lacks %q:\n%s", want, out)
					}
				}
			})
		}
	}
	got, errOut := bundleArgs(t, app, "--approval-opener", "firefox", "--include", "^echo$")
	if !slices.Contains(got, "--approval-opener=firefox") || !slices.Contains(got, "--approval=browser") {
		t.Errorf("the bundle's args %q lack the opener and its mode\n%s", got, errOut)
	}
}

// --trust writes Gemini CLI's "trust": true, which headless gemini -p needs
// to show the server's tools; without it the note says so; for another
// client it is refused, since nothing would be written.
func TestTrustIsGeminisAndWritten(t *testing.T) {
	app, cleanup, err := testsupport.BuildFixture()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	const exe = "/opt/fisk-mcp/bin/fisk-mcp"
	trusted := func(out string) bool {
		var doc map[string]map[string]map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, e := range doc["mcpServers"] {
			return e["trust"] == true
		}
		t.Fatalf("no server in %s", out)
		return false
	}
	out, errOut, err := runFiskMCP(t, exe, "config", "gemini", "--trust", app)
	if err != nil || !trusted(out) || strings.Contains(errOut, "pass --trust") {
		t.Errorf("--trust: %v\n%s\n%s", err, out, errOut)
	}
	out, errOut, err = runFiskMCP(t, exe, "config", "gemini", app)
	if err != nil || trusted(out) || !strings.Contains(errOut, "gemini -p) shows the tools of trusted servers only: pass --trust") {
		t.Errorf("without --trust: %v\n%s\n%s", err, out, errOut)
	}
	if _, _, err := runFiskMCP(t, exe, "config", "codex", "--trust", app); err == nil || !strings.Contains(err.Error(), "--trust is Gemini CLI's") {
		t.Errorf("--trust for codex: %v", err)
	}
}
