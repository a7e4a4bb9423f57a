package clients

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// ClaudeCodeHas reports whether Claude Code already registers l, as claude
// mcp add would, for the project in w.Workdir: its local scope, kept in
// .claude.json under $CLAUDE_CONFIG_DIR or the home directory. The file is
// only read; an unreadable or unfamiliar one reports false, and claude mcp
// add then says what it says.
func ClaudeCodeHas(l Launch, w Where) bool {
	var files []string
	if dir := w.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		files = append(files, filepath.Join(dir, ".claude.json"))
	}
	files = append(files, filepath.Join(w.Home, ".claude.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var cfg struct {
			Projects map[string]struct {
				MCPServers map[string]struct {
					Type    string            `json:"type"`
					Command string            `json:"command"`
					Args    []string          `json:"args"`
					Env     map[string]string `json:"env"`
				} `json:"mcpServers"`
			} `json:"projects"`
		}
		if json.Unmarshal(data, &cfg) != nil {
			continue
		}
		for path, p := range cfg.Projects {
			e, ok := p.MCPServers[l.Name]
			if ok && filepath.Clean(path) == filepath.Clean(w.Workdir) {
				return (e.Type == "" || e.Type == "stdio") && e.Command == l.Command && slices.Equal(e.Args, l.Args) &&
					(len(e.Env) == 0 && len(l.Env) == 0 || maps.Equal(e.Env, l.Env))
			}
		}
	}
	return false
}
