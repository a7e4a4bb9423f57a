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

func plainEntry(l Launch) any { return stdioEntry{Command: l.Command, Args: l.Args, Env: l.Env} }

// formats holds, by client, the documented shape of its file:
// {"mcpServers": {NAME: {command, args, env}}} for Claude Desktop, Cursor,
// Windsurf and Gemini CLI; {"servers": {NAME: {"type": "stdio", ...}}} for
// VS Code; [mcp_servers.NAME] with command, args and env for Codex.
var formats = map[string]format{
	"claude-desktop": {servers: "mcpServers", entry: plainEntry},
	"cursor":         {servers: "mcpServers", entry: plainEntry},
	"windsurf":       {servers: "mcpServers", entry: plainEntry},
	"gemini":         {servers: "mcpServers", comments: true, entry: plainEntry},
	"vscode": {servers: "servers", comments: true, entry: func(l Launch) any {
		return stdioEntry{Type: "stdio", Command: l.Command, Args: l.Args, Env: l.Env}
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
//
// One table, env inline, so that the entry is one section of the file.
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
