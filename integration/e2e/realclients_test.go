package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// realClient is an MCP client program, installed from npm at a pinned
// version, whose own command lists the servers of its configuration.
type realClient struct {
	config   string   // fisk-mcp config's name for it
	pkg, ver string   // the npm package and its version
	node22   bool     // it needs Node 22, installed beside it
	bin      string   // its command in node_modules/.bin
	list     []string // the command's arguments that list the servers
	flags    []string // config's own flags for it
	// shows are what the listing says of fisk-mcp's server, each a line's
	// part; the server's name is in each line too.
	shows []string
}

var realClients = []realClient{
	// codex mcp list reads config.toml without starting the server.
	{config: "codex", pkg: "@openai/codex", ver: "0.169.0", bin: "codex", list: []string{"mcp", "list"},
		shows: []string{"serve --approval=browser", "DISPLAY=*****, WAYLAND_DISPLAY=*****, XDG_RUNTIME_DIR=*****, DBUS_SESSION_BUS_ADDRESS=*****  -    enabled"}},
	// copilot mcp get reads mcp-config.json without starting the server.
	{config: "copilot", pkg: "@github/copilot", ver: "1.0.102", node22: true, bin: "copilot", list: []string{"mcp", "get"},
		shows: []string{"Type: local", "Command: " + "%FISK_MCP% serve", "Tools: * (all)", "Source: User"}},
	// gemini mcp list starts the server and says whether it connected.
	{config: "gemini", pkg: "@google/gemini-cli", ver: "0.61.0", bin: "gemini", list: []string{"mcp", "list"}, flags: []string{"--trust"},
		shows: []string{"(stdio) - Connected"}},
	// opencode mcp list starts the server and says whether it connected.
	{config: "opencode", pkg: "opencode-ai", ver: "1.18.33", bin: "opencode", list: []string{"mcp", "list"},
		shows: []string{"connected"}},
}

// install returns the client's directory in the test tool cache,
// installed there from npm on first use; the only network any of these
// tests reaches is the npm registry, here.
func (c realClient) install() (string, error) {
	return testsupport.InstallNPM(c.pkg, c.ver, c.node22)
}

// offline returns the command that runs argv with no network at all: in a
// network namespace of its own holding only a loopback that is down.
func offline(t *testing.T) []string {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err == nil {
		err = exec.Command(unshare, "-rn", "true").Run()
	}
	if err != nil {
		err = fmt.Errorf("the real clients run without network in a namespace of their own (unshare -rn), which this machine cannot make: %w", err)
	}
	testsupport.RequireTool(t, "real MCP clients offline (unshare -rn)", err)
	return []string{unshare, "-rn"}
}

// Each real client reads the file fisk-mcp config --install wrote, in a
// home of its own, and lists fisk-mcp's server as configured: Codex with
// the desktop's variables, Copilot CLI as a local server with every tool,
// and Gemini CLI (from $GEMINI_CLI_HOME) and opencode, which start the
// server, connected to it. No model is called, and the clients run with
// no network.
func TestRealClientsReadTheInstalledConfiguration(t *testing.T) {
	netless := offline(t)
	for _, c := range realClients {
		t.Run(c.config, func(t *testing.T) {
			t.Parallel()
			dir, err := c.install()
			testsupport.RequireTool(t, "real MCP client "+c.config+" (npm)", err)

			home, xdg, work := t.TempDir(), t.TempDir(), t.TempDir()
			env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + xdg, "CODEX_HOME=", "COPILOT_HOME=", "GEMINI_CLI_HOME=", "NO_COLOR=1"}
			if c.config == "gemini" {
				gemini := t.TempDir()
				env[len(env)-2] = "GEMINI_CLI_HOME=" + gemini
				// gemini suppresses every server in a folder it does not trust.
				if err := os.MkdirAll(filepath.Join(gemini, ".gemini"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(gemini, ".gemini", "trustedFolders.json"), fmt.Appendf(nil, "{%q: \"TRUST_FOLDER\"}", work), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if c.node22 {
				env = append(env, "PATH="+filepath.Join(dir, "node_modules", "node", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
			}
			_, errOut, code := runFiskMCP(t, env, append(append([]string{"config", c.config, "--install"}, c.flags...), fixtureBin)...)
			if code != 0 || !strings.Contains(errOut, "a new file") {
				t.Fatalf("config --install: exit %d\n%s", code, errOut)
			}
			name := filepath.Base(fixtureBin)
			out, err := c.run(t, netless, dir, work, env, name)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, want := range c.shows {
				want = strings.ReplaceAll(want, "%FISK_MCP%", fiskMCP)
				if !strings.Contains(out, want) || !strings.Contains(out, name) {
					t.Errorf("%s does not list %s with %q:\n%s", c.bin, name, want, out)
				}
			}
			if c.config == "codex" {
				codexReadsTheApprovals(t, c, netless, dir, work, env, home)
			}
		})
	}
}

// codexReadsTheApprovals proves that Codex reads the approvals the entry
// holds, which its listing does not show: the same file with an approval
// mode Codex does not know is refused, naming the key.
func codexReadsTheApprovals(t *testing.T, c realClient, netless []string, dir, work string, env []string, home string) {
	t.Helper()
	file := filepath.Join(home, ".codex", "config.toml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	key := "mcp_servers." + filepath.Base(fixtureBin) + ".tools.touch.approval_mode"
	if !strings.Contains(string(data), "[mcp_servers."+filepath.Base(fixtureBin)+".tools.touch]\napproval_mode = \"approve\"") {
		t.Fatalf("the entry does not approve the gated touch:\n%s", data)
	}
	bad := strings.Replace(string(data), `approval_mode = "approve"`, `approval_mode = "sometimes"`, 1)
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := c.run(t, netless, dir, work, env, "")
	if err == nil || !strings.Contains(out, key) || !strings.Contains(out, "approve") {
		t.Errorf("codex took an approval mode it does not know (%v):\n%s", err, out)
	}
}

// run runs the client's listing command (with name, for a command that
// takes one) in work, without network, and returns what it printed.
func (c realClient) run(t *testing.T, netless []string, dir, work string, env []string, name string) (string, error) {
	t.Helper()
	argv := append(append(append([]string{}, netless...), filepath.Join(dir, "node_modules", ".bin", c.bin)), c.list...)
	if name != "" && c.config == "copilot" {
		argv = append(argv, name)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%s did not finish in 2 minutes", c.bin)
	}
	return string(out), err
}
