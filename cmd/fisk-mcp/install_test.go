package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/clients"
)

func TestConfigRefusesInstallFlagsWithoutInstall(t *testing.T) {
	dir, _, _ := configFixture(t)
	for _, args := range [][]string{{"--force"}, {"--client-config", "x.json"}} {
		_, err := runConfigCommand(t, dir, append([]string{"cursor"}, append(args, "./nats")...)...)
		if err == nil || !strings.Contains(err.Error(), "go with --install") {
			t.Errorf("%v: err = %v", args, err)
		}
	}
}

// --install writes the file and prints nothing on stdout: the entry is in
// the file, not to be pasted.
func TestConfigInstallWritesTheFileNotStdout(t *testing.T) {
	dir, app, _ := configFixture(t)
	file := filepath.Join(dir, "mcp_config.json")
	out, err := runConfigCommand(t, dir, "windsurf", "--install", "--client-config", file, "./nats")
	if err != nil || out != "" {
		t.Fatalf("stdout %q, %v", out, err)
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), app) || !strings.Contains(string(data), `"--name=nats"`) {
		t.Errorf("%s: %v\n%s", file, err, data)
	}
}

// Installing into Claude Code again changes nothing and succeeds, as for
// the clients whose file is merged; claude mcp add, which refuses a name it
// has, is not run.
func TestConfigInstallIntoClaudeCodeAgainChangesNothing(t *testing.T) {
	home, project, bin := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("PATH", bin)
	t.Chdir(project)
	ran := filepath.Join(t.TempDir(), "ran")
	writeFile(t, bin, "claude", "#!/bin/sh\necho \"$@\" >> "+ran+"\nexit 1\n", 0o755)
	doc := `{"projects": {"` + project + `": {"mcpServers": {"demo": {"type": "stdio", "command": "/bin/fisk-mcp", "args": ["serve", "/bin/demo"], "env": {}}}}}}`
	writeFile(t, home, ".claude.json", doc, 0o600)

	var stderr bytes.Buffer
	c := newCLI(context.Background(), &bytes.Buffer{}, &stderr)
	l := clients.Launch{Name: "demo", Command: "/bin/fisk-mcp", Args: []string{"serve", "/bin/demo"}}
	if err := c.installClaudeCode(l, ""); err != nil {
		t.Fatal(err)
	}
	if want := "Claude Code already has this entry for \"demo\" in this project: nothing changed\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("claude was run")
	}
	l.Args = []string{"serve", "--watch", "/bin/demo"}
	if err := c.installClaudeCode(l, ""); err == nil {
		t.Error("a different entry of the same name was not handed to claude mcp add")
	}
}
