// Package clients writes the configuration that makes an MCP client start
// a stdio server: the JSON entry of Claude Desktop, VS Code, Copilot CLI,
// Cursor, Windsurf, Gemini CLI and opencode, the TOML table of Codex, and
// the "claude mcp add" command line of Claude Code, each in the form the
// client documents; and it installs that entry into the client's own file
// (Install), merging it with what the file holds. It does not decide what
// the server's command line is, and runs no command: Claude Code, which
// rewrites its file while it runs, is configured by running its claude
// mcp add (ClaudeAddArgs), which is the caller's to do.
//
// What it adds to the command line is deferral, because clients differ in
// how many tools they take (Advise; the figures are in Known, from the
// clients' own documentation or measured, late 2026):
//
//	client          cap                                      configuration
//	VS Code         128 per request, ~40 of them its own     deferred above 88
//	Cursor          80 tools                                 deferred above 80
//	Windsurf        50 tools                                 deferred above 50
//	Claude Code     none: defers every MCP tool itself       --defer=never
//	others          none of their own                        as given
//
// A cap counts the tools of all the client's servers (and VS Code's own
// agent tools), so the server's own default (--defer auto past 40 tools)
// stays under every cap and is kept where it already defers a set above
// the cap.
//
// It also chooses how a person approves gated calls (AdviseApproval), by
// what the client really does with elicitation, not what it declares:
// Claude Code, VS Code and Copilot CLI ask, so the server's default
// (--approval elicit) stays; Claude Desktop, Windsurf, Gemini CLI and
// opencode declare no elicitation, Cursor drops it from stdio servers and
// Codex declines every question, so their configurations pass
// --approval=browser when the app has gated tools. Codex's entry also lets
// those tools through Codex's own approval (CodexApprovals).
package clients

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
)

// Names are the clients known, in the order of help texts.
var Names = []string{"claude-desktop", "claude-code", "vscode", "copilot", "cursor", "windsurf", "codex", "gemini", "opencode"}

// Launch is how a client starts the server: the server's name in the client,
// the absolute command, its arguments and extra environment.
type Launch struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string

	// Trust marks the server trusted in Gemini CLI ("trust": true): its
	// calls are not confirmed in the client, and headless gemini -p shows
	// the tools of trusted servers only.
	Trust bool
	// Approve names the tools Codex runs without asking (approval_mode =
	// "approve"), because the server asks the person itself; see
	// CodexApprovals.
	Approve []string
	// PassEnv names the variables of Codex's environment Codex passes to
	// the server (env_vars), beyond the short list it passes by itself.
	PassEnv []string
}

// stdioEntry is one server entry of a JSON client configuration, fields in
// the order people expect to read them.
type stdioEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Tools   []string          `json:"tools,omitempty"`
	Trust   bool              `json:"trust,omitempty"`
}

// Hints tell the person where the output of Render goes, by client; print
// them apart from it (on stderr), so the output can be redirected as is.
var Hints = map[string]string{
	"claude-desktop": "merge this into the \"mcpServers\" object of claude_desktop_config.json, then restart Claude Desktop",
	"claude-code":    "run this command (add --scope user after the name to use the server in every project)",
	"vscode":         "merge this into the \"servers\" object of .vscode/mcp.json in the workspace",
	"copilot":        "merge this into the \"mcpServers\" object of ~/.copilot/mcp-config.json (or $COPILOT_HOME/mcp-config.json), then restart Copilot CLI",
	"opencode":       "merge this into the \"mcp\" object of ~/.config/opencode/opencode.json (or opencode.json in the project), then restart opencode",
	"cursor":         "merge this into the \"mcpServers\" object of .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project)",
	"windsurf":       "merge this into the \"mcpServers\" object of ~/.codeium/windsurf/mcp_config.json, then refresh the MCP servers in Windsurf",
	"codex":          "add this table to ~/.codex/config.toml (or $CODEX_HOME/config.toml), then restart Codex",
	"gemini":         "merge this into the \"mcpServers\" object of ~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini/settings.json when set, or .gemini/settings.json in the project), then restart Gemini CLI",
}

// Render renders l in the format the client documents. l.Name must not be
// empty nor start with "-", which a command line would read as an option.
func Render(client string, l Launch) (string, error) {
	if l.Name == "" || strings.HasPrefix(l.Name, "-") {
		return "", fmt.Errorf("server name %q cannot name a server in a client configuration; use letters, digits, - and _, not starting with -", l.Name)
	}
	switch client {
	case "claude-desktop", "cursor", "windsurf", "gemini", "vscode", "copilot", "opencode":
		f := formats[client]
		return marshalIndent(map[string]any{f.servers: map[string]any{l.Name: f.entry(l)}})
	case "codex":
		return codexTable(l), nil
	case "claude-code":
		return execrunner.DisplayCommandLine("claude", ClaudeAddArgs(l)) + "\n", nil
	default:
		return "", fmt.Errorf("unknown client %q: use one of %s", client, strings.Join(Names, ", "))
	}
}

// ClaudeAddArgs returns the arguments of the claude command that registers
// l with Claude Code: claude mcp add NAME [options] -- COMMAND [args...].
// Claude Code parses with commander.js, where --env takes any number of
// values: "--env K=V NAME" would read NAME as a second variable. So the
// name comes first, and each variable is one word, --env=K=V, after which
// nothing is taken as another value.
func ClaudeAddArgs(l Launch) []string {
	argv := []string{"mcp", "add", l.Name, "--transport", "stdio"}
	for _, k := range sortedKeys(l.Env) {
		argv = append(argv, "--env="+k+"="+l.Env[k])
	}
	argv = append(argv, "--", l.Command)
	return append(argv, l.Args...)
}

func marshalIndent(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", err
	}
	return string(b) + "\n", nil
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
