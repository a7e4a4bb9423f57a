package clients

import (
	"fmt"
	"path/filepath"
)

// Where is where the person's configuration is looked for: the OS
// (runtime.GOOS), the home directory, the working directory (a project's
// files) and the environment.
type Where struct {
	GOOS, Home, Workdir string
	Getenv              func(string) string
}

// ConfigFile returns the file Install writes for client, at the place the
// client documents:
//
//	claude-desktop  macOS ~/Library/Application Support/Claude/claude_desktop_config.json
//	                Windows %APPDATA%\Claude\claude_desktop_config.json (no Linux release)
//	vscode          .vscode/mcp.json in the working directory (the workspace)
//	cursor          ~/.cursor/mcp.json (every project)
//	windsurf        ~/.codeium/windsurf/mcp_config.json
//	codex           $CODEX_HOME/config.toml, else ~/.codex/config.toml
//	copilot         $COPILOT_HOME/mcp-config.json, else ~/.copilot/mcp-config.json
//	gemini          $GEMINI_CLI_HOME/.gemini/settings.json, else ~/.gemini/settings.json (every project)
//	opencode        $XDG_CONFIG_HOME/opencode/opencode.json, else ~/.config/opencode/opencode.json (every project)
//
// Claude Code has none: its command writes its file (ErrNoFile).
func ConfigFile(client string, w Where) (string, error) {
	switch client {
	case "claude-desktop":
		switch w.GOOS {
		case "darwin":
			return filepath.Join(w.Home, "Library", "Application Support", "Claude", "claude_desktop_config.json"), nil
		case "windows":
			if appData := w.Getenv("APPDATA"); appData != "" {
				return filepath.Join(appData, "Claude", "claude_desktop_config.json"), nil
			}
		}
		return "", fmt.Errorf("%w: Claude Desktop runs on macOS and Windows, and on %s its file is not known; pass --client-config FILE", ErrNoFile, w.GOOS)
	case "vscode":
		return filepath.Join(w.Workdir, ".vscode", "mcp.json"), nil
	case "cursor":
		return filepath.Join(w.Home, ".cursor", "mcp.json"), nil
	case "windsurf":
		return filepath.Join(w.Home, ".codeium", "windsurf", "mcp_config.json"), nil
	case "codex":
		if home := w.Getenv("CODEX_HOME"); home != "" {
			return filepath.Join(home, "config.toml"), nil
		}
		return filepath.Join(w.Home, ".codex", "config.toml"), nil
	case "copilot":
		if home := w.Getenv("COPILOT_HOME"); home != "" {
			return filepath.Join(home, "mcp-config.json"), nil
		}
		return filepath.Join(w.Home, ".copilot", "mcp-config.json"), nil
	case "gemini":
		home := w.Home
		if h := w.Getenv("GEMINI_CLI_HOME"); h != "" {
			home = h
		}
		return filepath.Join(home, ".gemini", "settings.json"), nil
	case "opencode":
		if xdg := w.Getenv("XDG_CONFIG_HOME"); xdg != "" {
			return filepath.Join(xdg, "opencode", "opencode.json"), nil
		}
		return filepath.Join(w.Home, ".config", "opencode", "opencode.json"), nil
	case "claude-code":
		return "", fmt.Errorf("%w: Claude Code rewrites its own file while it runs, so it is configured with claude mcp add", ErrNoFile)
	}
	return "", fmt.Errorf("%w: unknown client %q", ErrNoFile, client)
}
