package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Installs into one client file at once take turns: each reads the file
// as the one before left it, so every entry is there afterwards.
func TestConcurrentConfigInstallsKeepEveryEntry(t *testing.T) {
	const n = 20
	file := filepath.Join(t.TempDir(), "c.json")
	ctx, cancel := context.WithTimeout(t.Context(), patience)
	defer cancel()
	cmds := make([]*exec.Cmd, n)
	outs := make([]bytes.Buffer, n)
	for i := range cmds {
		cmds[i] = exec.CommandContext(ctx, fiskMCP, "config", "cursor", "--install", "--client-config", file, "--name", fmt.Sprintf("srv%d", i), fixtureBin)
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil || !strings.Contains(outs[i].String(), "installed") {
			t.Errorf("install %d: %v:\n%s", i, err, outs[i].String())
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	var missing []string
	for i := range n {
		if name := fmt.Sprintf("srv%d", i); doc.MCPServers[name] == nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the file holds %d servers of %d; missing %v", len(doc.MCPServers), n, missing)
	}
}
