package clients

import (
	"regexp"
	"strings"
)

// format is how a client's file holds its servers.
type format struct {
	// servers is the key of the object (JSON) or table (TOML) of servers.
	servers string
	// comments says that the client reads its JSON with comments and
	// trailing commas (JSONC): VS Code, and Gemini CLI, which strips
	// comments before parsing. A comment in the file of a client that reads
	// plain JSON makes the file malformed for that client, and for Install.
	comments bool
	// toml says that the file is TOML (Codex).
	toml bool
	// entry is one server's entry.
	entry func(Launch) any
}

func plainEntry(l Launch) any {
	return stdioEntry{Command: l.Command, Args: l.Args, Env: l.Env, Trust: l.Trust}
}

// opencodeEntry is one server of opencode's "mcp" object: the command line
// as one array, the variables as "environment".
type opencodeEntry struct {
	Type        string            `json:"type"`
	Command     []string          `json:"command"`
	Environment map[string]string `json:"environment,omitempty"`
	Enabled     bool              `json:"enabled"`
}

// formats holds, by client, the documented shape of its file:
// {"mcpServers": {NAME: {command, args, env}}} for Claude Desktop, Cursor,
// Windsurf and Gemini CLI; {"servers": {NAME: {"type": "stdio", ...}}} for
// VS Code; {"mcpServers": {NAME: {"type": "local", ..., "tools": ["*"]}}}
// for Copilot CLI, which requires the tools it may call ("*": all);
// {"mcp": {NAME: {"type": "local", "command": [argv...], "environment",
// "enabled"}}} for opencode (its config.json schema); [mcp_servers.NAME]
// with command, args and env for Codex.
var formats = map[string]format{
	"claude-desktop": {servers: "mcpServers", entry: plainEntry},
	"cursor":         {servers: "mcpServers", entry: plainEntry},
	"windsurf":       {servers: "mcpServers", entry: plainEntry},
	"gemini":         {servers: "mcpServers", comments: true, entry: plainEntry},
	"vscode": {servers: "servers", comments: true, entry: func(l Launch) any {
		return stdioEntry{Type: "stdio", Command: l.Command, Args: l.Args, Env: l.Env}
	}},
	"copilot": {servers: "mcpServers", entry: func(l Launch) any {
		return stdioEntry{Type: "local", Command: l.Command, Args: l.Args, Env: l.Env, Tools: []string{"*"}}
	}},
	"opencode": {servers: "mcp", comments: true, entry: func(l Launch) any {
		return opencodeEntry{Type: "local", Command: append([]string{l.Command}, l.Args...), Environment: l.Env, Enabled: true}
	}},
	"codex": {servers: "mcp_servers", toml: true},
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// codexTable renders l as Codex's config.toml documents a stdio server:
//
//	[mcp_servers.NAME]
//	command = "..."
//	args = ["...", ...]
//	env = { "KEY" = "value" }
//	env_vars = ["DISPLAY", ...]
//
//	[mcp_servers.NAME.tools.TOOL]
//	approval_mode = "approve"
//
// env inline, so that the entry is the server's table and, for the tools
// Codex is to run without asking (Launch.Approve), one subtable each.
func codexTable(l Launch) string {
	var b strings.Builder
	b.WriteString("[mcp_servers." + tomlKey(l.Name) + "]\n")
	b.WriteString("command = " + tomlString(l.Command) + "\n")
	b.WriteString("args = [")
	for i, a := range l.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tomlString(a))
	}
	b.WriteString("]\n")
	if len(l.Env) > 0 {
		b.WriteString("env = { ")
		for i, k := range sortedKeys(l.Env) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tomlString(k) + " = " + tomlString(l.Env[k]))
		}
		b.WriteString(" }\n")
	}
	if len(l.PassEnv) > 0 {
		b.WriteString("env_vars = [")
		for i, k := range l.PassEnv {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tomlString(k))
		}
		b.WriteString("]\n")
	}
	for _, tool := range l.Approve {
		b.WriteString("\n[mcp_servers." + tomlKey(l.Name) + ".tools." + tomlKey(tool) + "]\n")
		b.WriteString("approval_mode = \"approve\"\n")
	}
	return b.String()
}

func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return tomlString(k)
}

// tomlString quotes s as a TOML basic string, escaping what TOML forbids
// there: the quote, the backslash and the control characters but tab.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteByte('\t')
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
