package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// A Codex home as a person has it: another server, settings fisk-mcp does
// not know, comments.
const codexConfig = `# my Codex settings
model = "gpt-5-codex"

[mcp_servers.docs]
command = "npx" # pinned below
args = ["-y", "mcp-docs@1.2.0"]

[profiles.fast]
model = "gpt-5-mini"
`

// config --install merges into the client's file under HOME, keeping what
// is there, is a no-op the second time, and refuses a different entry of
// the same name until --force.
func TestConfigInstallMergesIntoCodexHome(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(file), 0o700)
	if err := os.WriteFile(file, []byte(codexConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "CODEX_HOME="}
	out, errOut, code := runFiskMCP(t, env, "config", "codex", "--install", fixtureBin)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q:\n%s", code, out, errOut)
	}
	data, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(data), codexConfig) {
		t.Errorf("the file as it was is not kept as is:\n%s", data)
	}
	var doc struct {
		Model      string `toml:"model"`
		MCPServers map[string]struct {
			Command string   `toml:"command"`
			Args    []string `toml:"args"`
		} `toml:"mcp_servers"`
		Profiles map[string]map[string]any `toml:"profiles"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not TOML: %v\n%s", err, data)
	}
	name := filepath.Base(fixtureBin)
	srv := doc.MCPServers[name]
	if doc.Model != "gpt-5-codex" || doc.Profiles["fast"]["model"] != "gpt-5-mini" || len(doc.MCPServers["docs"].Args) != 2 {
		t.Errorf("lost settings: %+v", doc)
	}
	if srv.Command != fiskMCP || !slices.Contains(srv.Args, "--name="+name) || srv.Args[len(srv.Args)-1] != fixtureBin {
		t.Errorf("entry %+v", srv)
	}
	backups, _ := filepath.Glob(file + ".*.bak")
	if len(backups) != 1 || !strings.Contains(errOut, backups[0]) {
		t.Fatalf("backups %v; stderr:\n%s", backups, errOut)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != codexConfig {
		t.Errorf("backup differs from the file as it was")
	}

	_, errOut, code = runFiskMCP(t, env, "config", "codex", "--install", fixtureBin)
	if code != 0 || !strings.Contains(errOut, "nothing changed") {
		t.Errorf("second install: exit %d:\n%s", code, errOut)
	}
	_, errOut, code = runFiskMCP(t, env, "config", "codex", "--install", "--confirm-tag", "impact:rw", fixtureBin)
	if code == 0 || !strings.Contains(errOut, "--force") || !strings.Contains(errOut, file) {
		t.Errorf("a different entry: exit %d:\n%s", code, errOut)
	}
	if now, _ := os.ReadFile(file); string(now) != string(data) {
		t.Error("a refused install changed the file")
	}
	_, errOut, code = runFiskMCP(t, env, "config", "codex", "--install", "--force", "--confirm-tag", "impact:rw", fixtureBin)
	now, _ := os.ReadFile(file)
	if code != 0 || !strings.Contains(string(now), `"--confirm-tag=impact:rw"`) || !strings.Contains(string(now), "# pinned below") {
		t.Errorf("--force: exit %d:\n%s\n%s", code, errOut, now)
	}
}

// VS Code's mcp.json is JSONC: comments and trailing commas survive; a
// symlinked file is written through the link.
func TestConfigInstallKeepsJSONCCommentsThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	const mcpJSON = "{\n  // team servers\n  \"servers\": {\n    \"github\": {\"type\": \"http\", \"url\": \"https://api.githubcopilot.com/mcp/\"}, // remote\n  },\n  \"inputs\": [],\n}\n"
	target := filepath.Join(dir, "dotfiles", "mcp.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte(mcpJSON), 0o644)
	link := filepath.Join(dir, "mcp.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runFiskMCP(t, nil, "config", "vscode", "--install", "--client-config", link, fixtureBin)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	data, _ := os.ReadFile(target)
	for _, keep := range []string{"// team servers", "// remote", `"inputs": [],`} {
		if !strings.Contains(string(data), keep) {
			t.Errorf("lost %q:\n%s", keep, data)
		}
	}
	if !strings.Contains(string(data), `"type": "stdio"`) || !strings.Contains(string(data), fiskMCP) {
		t.Errorf("entry missing:\n%s", data)
	}
}

// A file that does not parse is named and left exactly as it was.
func TestConfigInstallLeavesAMalformedFileAlone(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	const broken = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"\n  }\n"
	os.WriteFile(file, []byte(broken), 0o600)
	_, errOut, code := runFiskMCP(t, nil, "config", "gemini", "--install", "--client-config", file, fixtureBin)
	if code == 0 || !strings.Contains(errOut, file+" is malformed") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if data, _ := os.ReadFile(file); string(data) != broken {
		t.Error("the file changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left beside it: %v", entries)
	}
}

// Claude Code is installed through its own command: the claude on PATH is
// run with the arguments of the printed line; without one, the line is
// printed and the exit says why.
func TestConfigInstallRunsClaudeMCPAdd(t *testing.T) {
	bin := t.TempDir()
	record := filepath.Join(t.TempDir(), "argv")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> " + record + "\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runFiskMCP(t, []string{"PATH=" + bin}, "config", "claude-code", "--install", "--env", "A=b", fixtureBin)
	if code != 0 || !strings.Contains(errOut, "registered") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	data, _ := os.ReadFile(record)
	argv := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	name := filepath.Base(fixtureBin)
	want := []string{"mcp", "add", name, "--transport", "stdio", "--env=A=b", "--", fiskMCP, "serve"}
	if len(argv) < len(want) || !slices.Equal(argv[:len(want)], want) || argv[len(argv)-1] != fixtureBin {
		t.Errorf("claude ran with %q", argv)
	}

	out, errOut, code := runFiskMCP(t, []string{"PATH=" + t.TempDir()}, "config", "claude-code", "--install", fixtureBin)
	if code == 0 || !strings.HasPrefix(out, "claude mcp add ") || !strings.Contains(errOut, "not on PATH") {
		t.Errorf("without claude: exit %d, stdout %q:\n%s", code, out, errOut)
	}
}

// The printed configurations of Codex and Gemini CLI are the documented
// shapes, with the server's absolute path.
func TestConfigPrintsCodexAndGeminiEntries(t *testing.T) {
	out, errOut, code := runFiskMCP(t, nil, "config", "codex", fixtureBin)
	var codex map[string]map[string]map[string]any
	if code != 0 || toml.Unmarshal([]byte(out), &codex) != nil || codex["mcp_servers"][filepath.Base(fixtureBin)]["command"] != fiskMCP {
		t.Errorf("codex: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runFiskMCP(t, nil, "config", "gemini", fixtureBin)
	var gemini map[string]map[string]map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &gemini) != nil || gemini["mcpServers"][filepath.Base(fixtureBin)]["command"] != fiskMCP {
		t.Errorf("gemini: exit %d\n%s\n%s", code, out, errOut)
	}
}
