package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
