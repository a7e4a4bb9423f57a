package clients

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClaudeCodeHasTheEntryOnlyWhenItIsTheSameForThisProject: an entry of
// the same name is the same only with the same command, arguments and
// environment, for the working directory's project.
func TestClaudeCodeHasTheEntryOnlyWhenItIsTheSameForThisProject(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	doc := `{"projects": {"` + project + `": {"mcpServers": {"demo": {"type": "stdio", "command": "/bin/fisk-mcp", "args": ["serve", "/bin/demo"], "env": {}}}}}}`
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	w := Where{Home: home, Workdir: project, Getenv: func(string) string { return "" }}
	same := Launch{Name: "demo", Command: "/bin/fisk-mcp", Args: []string{"serve", "/bin/demo"}}
	for _, tc := range []struct {
		name string
		l    Launch
		w    Where
		want bool
	}{
		{"same", same, w, true},
		{"other arguments", Launch{Name: "demo", Command: "/bin/fisk-mcp", Args: []string{"serve", "--watch", "/bin/demo"}}, w, false},
		{"other environment", Launch{Name: "demo", Command: "/bin/fisk-mcp", Args: same.Args, Env: map[string]string{"A": "b"}}, w, false},
		{"other name", Launch{Name: "other", Command: "/bin/fisk-mcp", Args: same.Args}, w, false},
		{"other project", same, Where{Home: home, Workdir: t.TempDir(), Getenv: w.Getenv}, false},
		{"no file", same, Where{Home: t.TempDir(), Workdir: project, Getenv: w.Getenv}, false},
	} {
		if got := ClaudeCodeHas(tc.l, tc.w); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
