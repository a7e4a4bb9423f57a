package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// The official MCP Bundle CLI and library, which Claude Desktop's
// installation of a bundle follows.
const mcpbPackage = "@anthropic-ai/mcpb@2.1.2"

// bundleManifest is the part of manifest.json the tests read.
type bundleManifest struct {
	ManifestVersion string `json:"manifest_version"`
	Name            string `json:"name"`
	Version         string `json:"version"`
	Server          struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcp_config"`
	} `json:"server"`
	Tools         []struct{ Name, Description string } `json:"tools"`
	Compatibility struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
	UserConfig map[string]struct {
		Type        string `json:"type"`
		Description string `json:"description"`
		Sensitive   bool   `json:"sensitive"`
		Required    bool   `json:"required"`
		Default     any    `json:"default"`
	} `json:"user_config"`
}

// buildBundle runs fisk-mcp bundle with args and the fixture, and returns
// the bundle's path.
func buildBundle(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "fixture.mcpb")
	_, errOut, code := runFiskMCP(t, nil, append(append([]string{"bundle", "-o", out}, args...), fixtureBin)...)
	if code != 0 {
		t.Fatalf("fisk-mcp bundle: exit %d: %s", code, errOut)
	}
	return out
}

// unpackBundle extracts a bundle with Go's zip reader, keeping each
// entry's mode, and returns the directory and the manifest.
func unpackBundle(t *testing.T, bundle string) (string, bundleManifest) {
	t.Helper()
	zr, err := zip.OpenReader(bundle)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dir := t.TempDir()
	for _, f := range zr.File {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, f.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir, readManifest(t, dir)
}

func readManifest(t *testing.T, dir string) bundleManifest {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m bundleManifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("manifest.json: %v\n%s", err, raw)
	}
	return m
}

// launch is a server's command line and environment after Claude
// Desktop's substitutions.
type launch struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// serveBundle starts l as Claude Desktop does, over stdio with a short
// environment plus l's, and connects an SDK client without elicitation, as
// Claude Desktop has none.
func serveBundle(t *testing.T, l launch) (*mcp.ClientSession, *logBuffer) {
	t.Helper()
	cmd := exec.Command(l.Command, l.Args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for k, v := range l.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	log := newLogBuffer()
	cmd.Stderr = log
	cs, err := client{}.newClient("claude-desktop").Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting the bundle's server %v: %v\nstderr:\n%s", cmd.Args, err, log.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("closing the session: %v", err)
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", log.String())
		}
	})
	return cs, log
}

// checkServesTheManifestTools lists the tools of cs, which must be those
// the manifest names, and calls env to see what the apps get from the
// user configuration.
func checkServesTheManifestTools(t *testing.T, cs *mcp.ClientSession, m bundleManifest, server, password string) {
	t.Helper()
	var want []string
	for _, tool := range m.Tools {
		want = append(want, tool.Name)
	}
	got := testsupport.ListTools(t, cs)
	if names := slices.Sorted(func(yield func(string) bool) {
		for n := range got {
			if !yield(n) {
				return
			}
		}
	}); !slices.Equal(names, slices.Sorted(slices.Values(want))) {
		t.Fatalf("the server lists %q, the manifest %q", names, want)
	}
	out := envelope(t, testsupport.Call(t, cs, "env", args())).Output
	if !strings.Contains(out, "FIXTURE_SERVER="+server+"\n") {
		t.Errorf("the app did not get the configured server %q:\n%s", server, out)
	}
	if strings.Contains(out, password) || !strings.Contains(out, "FIXTURE_PASSWORD=[redacted]") {
		t.Errorf("the configured password is not redacted from the output:\n%s", out)
	}
}

func TestBundleValidatesWithTheOfficialCLIAndServesAsClaudeDesktopWould(t *testing.T) {
	const suite = "bundle validation with the mcpb CLI (npm)"
	if testing.Short() {
		testsupport.Skip(t, suite, "the mcpb CLI is installed from npm; skipped with -short")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		testsupport.Skip(t, suite, "npm is not installed; the mcpb CLI needs it")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		testsupport.Skip(t, suite, "node is not installed; the mcpb CLI needs it")
	}
	tools := t.TempDir()
	if out, err := exec.CommandContext(t.Context(), npm, "install", "--prefix", tools, "--no-audit", "--no-fund", mcpbPackage).CombinedOutput(); err != nil {
		testsupport.Skip(t, suite, fmt.Sprintf("npm could not install %s (%v):\n%s", mcpbPackage, err, out))
	}
	testsupport.Ran(suite)
	mcpb := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(t.Context(), filepath.Join(tools, "node_modules", ".bin", "mcpb"), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("mcpb %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	bundle := buildBundle(t, "--confirm-tag", "ops:prod")
	dir := t.TempDir()
	mcpb("unpack", bundle, dir)
	if out := mcpb("validate", filepath.Join(dir, "manifest.json")); !strings.Contains(out, "validation passes") {
		t.Errorf("mcpb validate:\n%s", out)
	}
	if out := mcpb("info", bundle); !strings.Contains(out, "fixture.mcpb") {
		t.Errorf("mcpb info:\n%s", out)
	}

	// The launch configuration as the library Claude Desktop installs
	// bundles with computes it from the manifest and the person's settings.
	const server, password = "nats://bundle.example:4222", "bundle-password-0123"
	script := `import { getMcpConfigForManifest } from ` + jsString("file://"+filepath.Join(tools, "node_modules", "@anthropic-ai", "mcpb", "dist", "index.js")) + `;
import { readFileSync } from "node:fs";
const manifest = JSON.parse(readFileSync(process.argv[1] + "/manifest.json", "utf8"));
const cfg = await getMcpConfigForManifest({ manifest, extensionPath: process.argv[1], systemDirs: {}, pathSeparator: "/",
  userConfig: { FIXTURE_SERVER: process.argv[2], FIXTURE_PASSWORD: process.argv[3] } });
process.stdout.write(JSON.stringify(cfg));`
	out, err := exec.CommandContext(t.Context(), node, "--input-type=module", "-e", script, dir, server, password).Output()
	if err != nil {
		t.Fatalf("computing the launch configuration: %v", err)
	}
	var l launch
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatalf("launch configuration %s: %v", out, err)
	}
	if slices.ContainsFunc(l.Args, func(a string) bool { return strings.Contains(a, password) }) {
		t.Fatalf("the password is in the server's arguments: %q", l.Args)
	}
	cs, _ := serveBundle(t, l)
	checkServesTheManifestTools(t, cs, readManifest(t, dir), server, password)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// desktopLaunch substitutes a manifest's variables as Claude Desktop does:
// ${__dirname} by dir, ${user_config.KEY} by the person's value or the
// entry's default.
func desktopLaunch(m bundleManifest, dir string, user map[string]string) launch {
	values := map[string]string{}
	for k, c := range m.UserConfig {
		if c.Default != nil {
			values[k] = fmt.Sprint(c.Default)
		}
	}
	for k, v := range user {
		values[k] = v
	}
	sub := func(s string) string {
		s = strings.ReplaceAll(s, "${__dirname}", dir)
		for k, v := range values {
			s = strings.ReplaceAll(s, "${user_config."+k+"}", v)
		}
		return s
	}
	c := m.Server.MCPConfig
	l := launch{Command: sub(c.Command), Env: map[string]string{}}
	for _, a := range c.Args {
		l.Args = append(l.Args, sub(a))
	}
	for k, v := range c.Env {
		l.Env[k] = sub(v)
	}
	return l
}

func TestBundleIsReproducibleAndAsksForSecretsInTheEnvironment(t *testing.T) {
	first := buildBundle(t, "--global-flag", "password", "--confirm-tag", "ops:prod")
	second := buildBundle(t, "--global-flag", "password", "--confirm-tag", "ops:prod")
	a, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(second); err != nil || !bytes.Equal(a, b) {
		t.Fatalf("two bundles of the same inputs differ (%d and %d bytes, %v)", len(a), len(b), err)
	}

	dir, m := unpackBundle(t, first)
	if m.ManifestVersion != "0.3" || m.Name != "fisk-fixture" || m.Version != "1.0.0" || m.Server.Type != "binary" || m.Server.EntryPoint != "server/fisk-mcp" {
		t.Errorf("manifest = %+v", m)
	}
	if want := []string{runtime.GOOS}; !slices.Equal(m.Compatibility.Platforms, want) {
		t.Errorf("platforms = %q, want %q", m.Compatibility.Platforms, want)
	}
	pw, srv := m.UserConfig["FIXTURE_PASSWORD"], m.UserConfig["FIXTURE_SERVER"]
	if pw.Type != "string" || !pw.Sensitive || pw.Required || srv.Sensitive || srv.Default != "" || !strings.Contains(srv.Description, "nats://127.0.0.1:4222") {
		t.Errorf("user_config = %+v", m.UserConfig)
	}
	for _, name := range []string{"FIXTURE_PASSWORD", "FIXTURE_SERVER"} {
		if got := m.Server.MCPConfig.Env[name]; got != "${user_config."+name+"}" {
			t.Errorf("env %s = %q, want its user_config entry", name, got)
		}
	}
	// The serving settings, and no user configuration, are arguments; the
	// fixture's gated tools are approved in the browser.
	if want := []string{"serve", "--confirm-tag=ops:prod", "--global-flag=password", "--name=fisk-fixture", "--approval=browser", "${__dirname}/apps/fisk-fixture"}; !slices.Equal(m.Server.MCPConfig.Args, want) {
		t.Errorf("args = %q, want %q", m.Server.MCPConfig.Args, want)
	}

	// Started from the unpacked bundle, the server serves the manifest's
	// tools, and the person's settings reach the app.
	const server, password = "nats://reproducible.example:4222", "reproducible-pass-42"
	cs, _ := serveBundle(t, desktopLaunch(m, dir, map[string]string{"FIXTURE_SERVER": server, "FIXTURE_PASSWORD": password}))
	checkServesTheManifestTools(t, cs, m, server, password)

	// Left empty, a setting leaves the app to its own default.
	cs, _ = serveBundle(t, desktopLaunch(m, dir, nil))
	var inv struct{ Values map[string]any }
	if out := envelope(t, testsupport.Call(t, cs, "echo", args("subject", "s"))).Output; json.Unmarshal([]byte(out), &inv) != nil || inv.Values["server"] != "nats://127.0.0.1:4222" {
		t.Errorf("with the server left empty, echo printed:\n%s", out)
	}
}

func TestBundleRefusesAPlatformFiskMCPCannotRunOn(t *testing.T) {
	windows, cleanup, err := testsupport.BuildFor(testsupport.FixturePackage, "fisk-fixture.exe", "windows", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	out := filepath.Join(t.TempDir(), "windows.mcpb")
	_, errOut, code := runFiskMCP(t, nil, "bundle", "-o", out, windows)
	if code == 0 || !strings.Contains(errOut, "windows/amd64") || !strings.Contains(errOut, "Linux and macOS only") {
		t.Errorf("bundling a Windows app: exit %d, stderr:\n%s", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused bundle was written (%v)", err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "fixture.zip"}, "NAME.mcpb"},
		{[]string{"-o", out, "--http", "127.0.0.1:0"}, "stdio"},
	} {
		_, errOut, code := runFiskMCP(t, nil, append(append([]string{"bundle"}, tc.args...), fixtureBin)...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("bundle %q: exit %d, stderr:\n%s", tc.args, code, errOut)
		}
	}
}

// Claude Desktop substitutes ${...} in a bundle's arguments, with no
// escape: a flag naming a setting would put the person's password in the
// server's command line.
func TestBundleRefusesAFlagClaudeDesktopWouldSubstitute(t *testing.T) {
	for _, flag := range []string{"--name=a${user_config.FIXTURE_PASSWORD}", "--instructions=see ${HOME}"} {
		out := filepath.Join(t.TempDir(), "fixture.mcpb")
		_, errOut, code := runFiskMCP(t, nil, "bundle", "-o", out, flag, fixtureBin)
		if code == 0 || !strings.Contains(errOut, fmt.Sprintf("%q", flag)) || !strings.Contains(errOut, "no escape") {
			t.Errorf("bundle %s: exit %d, stderr:\n%s", flag, code, errOut)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("bundle %s: a refused bundle was written (%v)", flag, err)
		}
	}
}
