package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runConfigCommand runs fisk-mcp config from dir with a fixed executable.
func runConfigCommand(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	c := newCLI(context.Background(), &stdout, &stderr)
	c.executable = func() (string, error) { return "/opt/fisk-mcp/bin/fisk-mcp", nil }
	c.app.Terminate(func(code int) { t.Fatalf("terminated with %d: %s", code, stderr.String()) })
	_, err := c.app.Parse(append([]string{"config"}, args...))
	return stdout.String(), err
}

// configFixture lays out relative paths that the generated configuration
// must turn absolute.
func configFixture(t *testing.T) (dir, app, cfg string) {
	dir = t.TempDir()
	app = fakeApp(t, dir, "nats")
	cfg = writeFile(t, dir, "fisk-mcp.yaml", "confirm_tags: [impact:rw]\n", 0o600)
	return dir, app, cfg
}

func TestClientConfigurationsParseBackWithAbsolutePaths(t *testing.T) {
	for _, client := range []string{"claude-desktop", "vscode"} {
		t.Run(client, func(t *testing.T) {
			dir, app, cfg := configFixture(t)
			out, err := runConfigCommand(t, dir, client, "--config", "fisk-mcp.yaml", "--confirm-tag", "ops:prod", "--no-watch", "--env", "NATS_CONTEXT=prod", "--timeout", "1m", "js=./nats")
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]map[string]struct {
				Type    string            `json:"type"`
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			top := "mcpServers"
			if client == "vscode" {
				top = "servers"
			}
			if len(doc) != 1 || doc[top] == nil {
				t.Fatalf("want one %q object, got %s", top, out)
			}
			srv, ok := doc[top]["js"]
			if !ok {
				t.Fatalf("server not named after the app's prefix: %s", out)
			}
			if client == "vscode" && srv.Type != "stdio" {
				t.Errorf("vscode type = %q, want stdio", srv.Type)
			}
			if srv.Command != "/opt/fisk-mcp/bin/fisk-mcp" {
				t.Errorf("command = %q", srv.Command)
			}
			want := []string{"serve", "--config=" + cfg, "--confirm-tag=ops:prod", "--timeout=1m0s", "--no-watch", "--name=js", "js=" + app}
			if client == "claude-desktop" {
				// The fake app's tools cannot be counted, so some may be gated.
				want = slices.Insert(want, 5, "--approval=browser")
			}
			if !slices.Equal(srv.Args, want) {
				t.Errorf("args = %q\nwant   %q", srv.Args, want)
			}
			for _, a := range srv.Args {
				if v, ok := strings.CutPrefix(a, "--config="); ok && !filepath.IsAbs(v) {
					t.Errorf("relative path in %q", a)
				}
			}
			if srv.Env["NATS_CONTEXT"] != "prod" {
				t.Errorf("env = %v", srv.Env)
			}
		})
	}
}

func TestClaudeCodeConfigurationIsAClaudeMCPAddLine(t *testing.T) {
	dir, app, _ := configFixture(t)
	out, err := runConfigCommand(t, dir, "claude-code", "--name", "my tools", "--env", "A=b", "--include", "^stream_", "./nats")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("want one line, got %q", out)
	}
	words := strings.Fields(out)
	// The server name comes first: Claude Code's --env takes several values
	// and would read a name after it as one. Each variable is one word, and
	// the server's command line follows "--".
	sep := slices.Index(words, "--")
	if sep < 0 || words[sep+1] != "/opt/fisk-mcp/bin/fisk-mcp" || words[sep+2] != "serve" {
		t.Fatalf("layout wrong: %q", out)
	}
	if !slices.Equal(words[:sep], []string{"claude", "mcp", "add", "my-tools", "--transport", "stdio", "--env=A=b"}) {
		t.Errorf("options = %q", words[:sep])
	}
	if words[len(words)-1] != app {
		t.Errorf("app not absolute last: %q", out)
	}
	if !strings.Contains(out, "'--include=^stream_'") || !strings.Contains(out, "'--name=my tools'") {
		t.Errorf("shell quoting missing: %q", out)
	}
}

// The server the client registers names itself by that name, so its
// approval prompts say "fisk-demo", not "fisk-mcp"; a name the person gave
// is passed as given.
func TestClientConfigurationsPassTheNameTheyRegister(t *testing.T) {
	for _, client := range []string{"claude-desktop", "vscode", "claude-code"} {
		t.Run(client, func(t *testing.T) {
			dir, _, _ := configFixture(t)
			out, err := runConfigCommand(t, dir, client, "./nats")
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(out, "--name="); n != 1 || !strings.Contains(out, `--name=nats`) {
				t.Errorf("want the server started with --name=nats once: %s", out)
			}
			out, err = runConfigCommand(t, dir, client, "--name", "ops", "./nats")
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(out, "--name="); n != 1 || !strings.Contains(out, `--name=ops`) {
				t.Errorf("want the person's --name=ops once: %s", out)
			}
		})
	}
}

func TestClientConfigurationRefusesHTTP(t *testing.T) {
	dir, app, _ := configFixture(t)
	_, err := runConfigCommand(t, dir, "claude-desktop", "--http", "127.0.0.1:8080", app)
	if err == nil || !strings.Contains(err.Error(), "--http") {
		t.Fatalf("flag: err = %v", err)
	}
	writeFile(t, dir, "http.yaml", "http: 127.0.0.1:8080\n", 0o600)
	_, err = runConfigCommand(t, dir, "claude-desktop", "--config", "http.yaml", app)
	if err == nil || !strings.Contains(err.Error(), "stdio") {
		t.Fatalf("file: err = %v", err)
	}
}

func TestClientConfigurationValidatesLikeServe(t *testing.T) {
	dir, _, _ := configFixture(t)
	_, err := runConfigCommand(t, dir, "vscode", "--include", "(", "./missing")
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("err = %v", err)
	}
	_, err = runConfigCommand(t, dir, "vscode", "--env", "NOEQUALS", "./nats")
	if err == nil || !strings.Contains(err.Error(), "KEY=VALUE") {
		t.Fatalf("err = %v", err)
	}
}

// An app that cannot be introspected here (the client's environment may
// differ) still gets its configuration, with a warning that its tools were
// not counted; Claude Code's line lists every tool, a chosen mode aside.
func TestClientConfigurationWithoutACountStillWrites(t *testing.T) {
	dir, _, _ := configFixture(t)
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	c := newCLI(context.Background(), &stdout, &stderr)
	c.executable = func() (string, error) { return "/opt/fisk-mcp/bin/fisk-mcp", nil }
	if _, err := c.app.Parse([]string{"config", "windsurf", "--defer", "never", "./nats"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"warning: the tools to serve could not be counted", "note: the tools could not be counted; Windsurf takes at most 50 tools"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if !strings.Contains(stdout.String(), `"--defer=never"`) {
		t.Errorf("the person's --defer never was dropped without a count: %s", stdout.String())
	}

	out, err := runConfigCommand(t, dir, "claude-code", "./nats")
	if err != nil || !strings.Contains(out, " --defer=never ") {
		t.Errorf("claude-code line %q (%v) does not pass --defer=never", out, err)
	}
	out, err = runConfigCommand(t, dir, "claude-code", "--config", "fisk-mcp.yaml", "--defer", "always", "./nats")
	if err != nil || !strings.Contains(out, " --defer=always ") || strings.Contains(out, "--defer=never") {
		t.Errorf("claude-code line %q (%v) does not keep the chosen mode", out, err)
	}
	writeFile(t, dir, "deferred.yaml", "defer: always\n", 0o600)
	out, err = runConfigCommand(t, dir, "claude-code", "--config", "deferred.yaml", "./nats")
	if err != nil || strings.Contains(out, "--defer=") {
		t.Errorf("claude-code line %q (%v) overrides the file's defer: always", out, err)
	}
}
