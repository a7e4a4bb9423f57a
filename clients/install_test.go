package clients

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

var fiskLaunch = Launch{Name: "nats", Command: "/usr/local/bin/fisk-mcp", Args: []string{"serve", "--name=nats", "/usr/bin/nats"}, Env: map[string]string{"NATS_CONTEXT": "prod"}}

// Real-looking files: other servers, keys fisk-mcp does not know, and
// comments where the format has them.
var (
	desktopFile = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    }
  },
  "globalShortcut": "Ctrl+Space",
  "preferences": {"menuBarEnabled": true}
}
`
	vscodeFile = `// Workspace MCP servers
{
	"inputs": [
		{ "type": "promptString", "id": "token", "password": true }, // asked once
	],
	"servers": {
		/* the GitHub server */
		"github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" },
	},
}
`
	geminiFile = `{
  // the theme
  "ui": { "theme": "GitHub" },
  "mcp": { "allowed": ["github"] }
}
`
	copilotFile = `{
  "mcpServers": {
    "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/", "tools": ["*"] }
  },
  "trusted_folders": ["/src"]
}
`
	opencodeFile = `{
  "$schema": "https://opencode.ai/config.json",
  // the model
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": { "jira": { "type": "remote", "url": "https://jira.example.com/mcp", "enabled": true } }
}
`
	codexFile = `# Codex settings
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.docs]
# the documentation server
command = "npx"
args = ["-y", "mcp-docs"] # pinned

[profiles.fast]
model = "gpt-5-mini"
`
)

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o640); err != nil {
		t.Fatal(err)
	}
	return path
}

// decodeFile decodes a client file as the client reads it.
func decodeFile(t *testing.T, client, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]any{}
	if formats[client].toml {
		err = toml.Unmarshal(data, &v)
	} else {
		plain := data
		if formats[client].comments {
			plain, _ = stripJSONC(data)
		}
		err = json.Unmarshal(plain, &v)
	}
	if err != nil {
		t.Fatalf("%s does not parse after install: %v\n%s", path, err, data)
	}
	return v
}

func TestInstallMergesKeepingEverythingElse(t *testing.T) {
	cases := []struct {
		client, text string
		kept         []string // text that must survive byte for byte
	}{
		{"claude-desktop", desktopFile, []string{`"globalShortcut": "Ctrl+Space"`, `"args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]`}},
		{"cursor", desktopFile, nil},
		{"windsurf", "{}", nil},
		{"vscode", vscodeFile, []string{"// Workspace MCP servers", "// asked once", "/* the GitHub server */", `"github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" },`}},
		{"gemini", geminiFile, []string{"// the theme", `"mcp": { "allowed": ["github"] }`}},
		{"codex", codexFile, []string{codexFile}},
		{"copilot", copilotFile, []string{`"trusted_folders": ["/src"]`, `"github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/", "tools": ["*"] }`}},
		{"opencode", opencodeFile, []string{"// the model", `"mcp": { "jira": { "type": "remote", "url": "https://jira.example.com/mcp", "enabled": true },`}},
	}
	for _, tc := range cases {
		t.Run(tc.client, func(t *testing.T) {
			path := writeTemp(t, "config", tc.text)
			before := decodeFile(t, tc.client, path)
			res, err := Install(tc.client, fiskLaunch, path, false)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			for _, k := range tc.kept {
				if !strings.Contains(string(data), k) {
					t.Errorf("lost %q:\n%s", k, data)
				}
			}
			after := decodeFile(t, tc.client, path)
			key := formats[tc.client].servers
			entry := after[key].(map[string]any)["nats"]
			delete(after[key].(map[string]any), "nats")
			if len(after[key].(map[string]any)) == 0 && before[key] == nil {
				delete(after, key)
			}
			if !reflect.DeepEqual(before, after) {
				t.Errorf("the rest of the file changed:\nbefore %v\nafter  %v", before, after)
			}
			e := entry.(map[string]any)
			switch tc.client {
			case "opencode":
				if !reflect.DeepEqual(e, map[string]any{"type": "local", "command": []any{fiskLaunch.Command, "serve", "--name=nats", "/usr/bin/nats"}, "environment": map[string]any{"NATS_CONTEXT": "prod"}, "enabled": true}) {
					t.Errorf("entry = %v", e)
				}
			default:
				if e["command"] != fiskLaunch.Command || !reflect.DeepEqual(e["args"], []any{"serve", "--name=nats", "/usr/bin/nats"}) || !reflect.DeepEqual(e["env"], map[string]any{"NATS_CONTEXT": "prod"}) {
					t.Errorf("entry = %v", e)
				}
				if want := map[string]any{"vscode": "stdio", "copilot": "local"}[tc.client]; e["type"] != want {
					t.Errorf("type = %v, want %v", e["type"], want)
				}
				if (tc.client == "copilot") != reflect.DeepEqual(e["tools"], []any{"*"}) {
					t.Errorf("tools = %v", e["tools"])
				}
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want the file's 0640 kept", st.Mode().Perm())
			}
			if b, err := os.ReadFile(res.Backup); err != nil || string(b) != tc.text {
				t.Errorf("backup %q: %v\n%s", res.Backup, err, b)
			}
			again, err := Install(tc.client, fiskLaunch, path, false)
			if err != nil || !again.Unchanged || again.Backup != "" {
				t.Errorf("the same entry again: %+v, %v", again, err)
			}
			if d2, _ := os.ReadFile(path); string(d2) != string(data) {
				t.Errorf("an identical install rewrote the file")
			}
		})
	}
}

func TestInstallRefusesADifferentServerOfTheSameNameUnlessForced(t *testing.T) {
	other := fiskLaunch
	other.Args = []string{"serve", "/opt/other"}
	for _, client := range []string{"claude-desktop", "vscode", "codex"} {
		t.Run(client, func(t *testing.T) {
			text := map[string]string{"claude-desktop": desktopFile, "vscode": vscodeFile, "codex": codexFile}[client]
			path := writeTemp(t, "config", text)
			if _, err := Install(client, other, path, false); err != nil {
				t.Fatal(err)
			}
			installed, _ := os.ReadFile(path)
			_, err := Install(client, fiskLaunch, path, false)
			if !errors.Is(err, ErrExists) {
				t.Fatalf("err = %v, want ErrExists", err)
			}
			if now, _ := os.ReadFile(path); string(now) != string(installed) {
				t.Fatal("a refused install changed the file")
			}
			res, err := Install(client, fiskLaunch, path, true)
			if err != nil {
				t.Fatal(err)
			}
			after := decodeFile(t, client, path)
			servers := after[formats[client].servers].(map[string]any)
			if !reflect.DeepEqual(servers["nats"].(map[string]any)["args"], []any{"serve", "--name=nats", "/usr/bin/nats"}) || len(servers) != 2 {
				t.Errorf("servers after --force: %v", servers)
			}
			if b, _ := os.ReadFile(res.Backup); string(b) != string(installed) {
				t.Errorf("backup is not the file as it was")
			}
		})
	}
}

// A Codex table with a subtable and comments is replaced where it stands;
// the comments outside it stay.
func TestInstallReplacesACodexTableWithItsSubtables(t *testing.T) {
	text := codexFile + `
[mcp_servers.nats]
command = "/old/fisk-mcp"
args = ["serve"]

[mcp_servers.nats.env]
OLD = "1"
# about the next table
[tui]
notifications = true
`
	path := writeTemp(t, "config.toml", text)
	if _, err := Install("codex", fiskLaunch, path, true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, k := range []string{"# about the next table", "# the documentation server", "[tui]"} {
		if !strings.Contains(string(data), k) {
			t.Errorf("lost %q:\n%s", k, data)
		}
	}
	if strings.Contains(string(data), "OLD") || strings.Count(string(data), "[mcp_servers.nats") != 1 {
		t.Errorf("old entry left:\n%s", data)
	}
	if v := decodeFile(t, "codex", path); v["tui"].(map[string]any)["notifications"] != true {
		t.Errorf("tui lost: %v", v)
	}
}

func TestInstallLeavesAMalformedFileAlone(t *testing.T) {
	cases := []struct{ client, text, want string }{
		{"claude-desktop", `{"mcpServers": {"a": {}},}`, "malformed"},
		{"claude-desktop", "{\n  // a comment\n  \"mcpServers\": {}\n}", "comments"},
		{"vscode", `{"servers": {"a": {} /* open`, "malformed"},
		{"gemini", `["not", "an", "object"]`, "not an object"},
		{"codex", "[mcp_servers.a]\ncommand = \n", "line 2"},
		{"codex", "mcp_servers = 3\n", "not a table"},
	}
	for _, tc := range cases {
		t.Run(tc.client+" "+tc.want, func(t *testing.T) {
			path := writeTemp(t, "config", tc.text)
			_, err := Install(tc.client, fiskLaunch, path, true)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			var me *MalformedError
			if tc.want != "not a table" && (!errors.As(err, &me) || me.File != path || !strings.Contains(err.Error(), path)) {
				t.Errorf("err %v does not name %s as malformed", err, path)
			}
			if data, _ := os.ReadFile(path); string(data) != tc.text {
				t.Error("the file changed")
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
				t.Errorf("files left beside it: %v", entries)
			}
		})
	}
}

// A Codex file that spells the servers inline cannot take a table: the
// edit is refused rather than making a file Codex would reject.
func TestInstallRefusesACodexFileItCannotExtend(t *testing.T) {
	text := "mcp_servers = { docs = { command = \"npx\" } }\n"
	path := writeTemp(t, "config.toml", text)
	if _, err := Install("codex", fiskLaunch, path, false); !errors.Is(err, ErrCannotMerge) {
		t.Fatalf("err = %v, want ErrCannotMerge", err)
	}
	if data, _ := os.ReadFile(path); string(data) != text {
		t.Error("the file changed")
	}
}

func TestInstallFollowsASymlinkAndCreatesAMissingFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(target, []byte(desktopFile), 0o644)
	link := filepath.Join(dir, "mcp.json")
	if err := os.Symlink("dotfiles/mcp.json", link); err != nil {
		t.Fatal(err)
	}
	res, err := Install("cursor", fiskLaunch, link, false)
	if err != nil || res.File != target {
		t.Fatalf("%+v, %v: want the target written", res, err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if v := decodeFile(t, "cursor", target); v["mcpServers"].(map[string]any)["nats"] == nil {
		t.Errorf("target not updated: %v", v)
	}

	fresh := filepath.Join(dir, "new", ".codex", "config.toml")
	res, err = Install("codex", fiskLaunch, fresh, false)
	if err != nil || res.Backup != "" {
		t.Fatalf("%+v, %v", res, err)
	}
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o600 {
		t.Errorf("a new file is %v, want 0600: it may hold the server's environment", st.Mode().Perm())
	}
}

// When the new file cannot be written, the old one is intact and nothing
// is left beside it. The temporary file's name is one that the file system
// refuses (longer than 255 bytes), which fails as root too.
func TestInstallLeavesTheFileIntactWhenTheWriteFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, strings.Repeat("c", 245)+".json")
	if err := os.WriteFile(path, []byte(desktopFile), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Install("windsurf", fiskLaunch, path, false)
	if err == nil || !strings.Contains(err.Error(), "the file is unchanged") {
		t.Fatalf("err = %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != desktopFile {
		t.Error("the file changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left beside it: %v", entries)
	}
	if os.Geteuid() != 0 {
		ro := writeTemp(t, "mcp.json", desktopFile)
		os.Chmod(filepath.Dir(ro), 0o500)
		t.Cleanup(func() { os.Chmod(filepath.Dir(ro), 0o700) })
		if _, err := Install("windsurf", fiskLaunch, ro, false); err == nil {
			t.Error("install into a read-only directory succeeded")
		}
		if data, _ := os.ReadFile(ro); string(data) != desktopFile {
			t.Error("the file changed")
		}
	}
}

func TestConfigFileIsWhereTheClientDocumentsIt(t *testing.T) {
	env := map[string]string{"APPDATA": `/win/AppData/Roaming`}
	w := Where{GOOS: "linux", Home: "/home/me", Workdir: "/src/proj", Getenv: func(k string) string { return env[k] }}
	cases := map[string]string{
		"vscode":   "/src/proj/.vscode/mcp.json",
		"cursor":   "/home/me/.cursor/mcp.json",
		"windsurf": "/home/me/.codeium/windsurf/mcp_config.json",
		"codex":    "/home/me/.codex/config.toml",
		"gemini":   "/home/me/.gemini/settings.json",
		"copilot":  "/home/me/.copilot/mcp-config.json",
		"opencode": "/home/me/.config/opencode/opencode.json",
	}
	for client, want := range cases {
		if got, err := ConfigFile(client, w); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", client, got, err, want)
		}
	}
	mac := w
	mac.GOOS = "darwin"
	if got, _ := ConfigFile("claude-desktop", mac); got != "/home/me/Library/Application Support/Claude/claude_desktop_config.json" {
		t.Errorf("macOS: %q", got)
	}
	win := w
	win.GOOS = "windows"
	if got, _ := ConfigFile("claude-desktop", win); got != filepath.Join("/win/AppData/Roaming", "Claude", "claude_desktop_config.json") {
		t.Errorf("Windows: %q", got)
	}
	for _, client := range []string{"claude-desktop", "claude-code"} {
		if _, err := ConfigFile(client, w); !errors.Is(err, ErrNoFile) {
			t.Errorf("%s on Linux: %v, want ErrNoFile", client, err)
		}
	}
	for client, c := range map[string]struct{ env, value, want string }{
		"codex":    {"CODEX_HOME", "/srv/codex", "/srv/codex/config.toml"},
		"copilot":  {"COPILOT_HOME", "/srv/copilot", "/srv/copilot/mcp-config.json"},
		"gemini":   {"GEMINI_CLI_HOME", "/srv/gemini", "/srv/gemini/.gemini/settings.json"},
		"opencode": {"XDG_CONFIG_HOME", "/srv/xdg", "/srv/xdg/opencode/opencode.json"},
	} {
		env[c.env] = c.value
		if got, _ := ConfigFile(client, w); got != c.want {
			t.Errorf("%s with %s: %q, want %q", client, c.env, got, c.want)
		}
	}
}

// The entry goes after the last member, past a comment that ends its line,
// in the file's indentation and comma style.
func TestInstallPlacesTheEntryInTheFilesLayout(t *testing.T) {
	l := Launch{Name: "n", Command: "/f", Args: []string{"serve"}}
	cases := []struct{ name, in, want string }{
		{"trailing comma and a line comment", "{\n  \"servers\": {\n    \"a\": {}, // one\n  },\n}\n",
			"{\n  \"servers\": {\n    \"a\": {}, // one\n    \"n\": {\n      \"type\": \"stdio\",\n      \"command\": \"/f\",\n      \"args\": [\n        \"serve\"\n      ],\n      \"env\": null\n    },\n  },\n}\n"},
		{"no comma, tabs", "{\n\t\"servers\": {\n\t\t\"a\": {} // one\n\t}\n}\n",
			"{\n\t\"servers\": {\n\t\t\"a\": {}, // one\n\t\t\"n\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"/f\",\n\t\t\t\"args\": [\n\t\t\t\t\"serve\"\n\t\t\t],\n\t\t\t\"env\": null\n\t\t}\n\t}\n}\n"},
		{"an empty object", "{\"servers\": {}}\n",
			"{\"servers\": {\n  \"n\": {\n    \"type\": \"stdio\",\n    \"command\": \"/f\",\n    \"args\": [\n      \"serve\"\n    ],\n    \"env\": null\n  }\n}}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, "mcp.json", tc.in)
			if _, err := Install("vscode", l, path, false); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// A file written with CRLF line endings gets the entry's lines with CRLF.
func TestInstallKeepsCRLFLineEndings(t *testing.T) {
	for client, text := range map[string]string{"vscode": vscodeFile, "codex": codexFile} {
		crlf := strings.ReplaceAll(text, "\n", "\r\n")
		path := writeTemp(t, "config", crlf)
		if _, err := Install(client, fiskLaunch, path, false); err != nil {
			t.Fatalf("%s: %v", client, err)
		}
		data, _ := os.ReadFile(path)
		if strings.Count(string(data), "\n") != strings.Count(string(data), "\r\n") || !strings.Contains(string(data), fiskLaunch.Command) {
			t.Errorf("%s: lone newlines in\n%q", client, data)
		}
	}
}
