package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// clientNames are the clients config knows, in the order of --help.
var clientNames = []string{"claude-desktop", "claude-code", "vscode"}

// launch is how a client starts fisk-mcp: the server's name in the client,
// the absolute command, its arguments and extra environment.
type launch struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
}

func (c *cli) runConfig(*fisk.ParseContext) error {
	p := c.config
	// Render the command line before the configuration file is merged in:
	// the file is passed by path, and its values must not be repeated.
	args, err := p.args()
	if err != nil {
		return err
	}
	apps, err := absoluteApps(p.appArgs)
	if err != nil {
		return err
	}
	if err := p.load(); err != nil {
		return err
	}
	if p.Serving.HTTP.Addr != "" {
		return errors.New("config writes configurations for clients that start fisk-mcp over stdio; drop --http (or http: from --config), or run fisk-mcp serve --http and use the claude mcp add line it prints")
	}
	exe, err := c.executable()
	if err != nil {
		return fmt.Errorf("locating the fisk-mcp binary: %w; install fisk-mcp and run it by its path", err)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		fmt.Fprintf(c.stderr, "warning: %s is a temporary build (go run); install fisk-mcp (go install) and run config from the installed binary\n", exe)
	}
	env, err := parseEnvPairs(c.clientEnv)
	if err != nil {
		return err
	}
	l := launch{
		Name:    serverKey(p.Serving.Server.Name, p.Apps),
		Command: exe,
		Args:    append(append([]string{"serve"}, args...), apps...),
		Env:     env,
	}
	out, err := renderClientConfig(c.client, l)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprint(c.stdout, out); err != nil {
		return err
	}
	fmt.Fprintln(c.stderr, clientHints[c.client])
	return nil
}

// stdioEntry is one server entry of a JSON client configuration, fields in
// the order people expect to read them.
type stdioEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// clientHints tell the person where the output goes; they are printed on
// stderr so stdout can be piped or redirected as is.
var clientHints = map[string]string{
	"claude-desktop": "merge this into the \"mcpServers\" object of claude_desktop_config.json, then restart Claude Desktop",
	"claude-code":    "run this command (add --scope user before the name to use the server in every project)",
	"vscode":         "merge this into the \"servers\" object of .vscode/mcp.json in the workspace",
}

// renderClientConfig renders l in the format the client documents.
func renderClientConfig(client string, l launch) (string, error) {
	switch client {
	case "claude-desktop":
		// claude_desktop_config.json: {"mcpServers": {NAME: {command, args, env}}}
		return marshalIndent(map[string]any{"mcpServers": map[string]stdioEntry{
			l.Name: {Command: l.Command, Args: l.Args, Env: l.Env},
		}})
	case "vscode":
		// .vscode/mcp.json: {"servers": {NAME: {"type": "stdio", command, args, env}}}
		return marshalIndent(map[string]any{"servers": map[string]stdioEntry{
			l.Name: {Type: "stdio", Command: l.Command, Args: l.Args, Env: l.Env},
		}})
	case "claude-code":
		// claude mcp add [options] NAME -- COMMAND [args...]; every option
		// goes before the name.
		argv := []string{"mcp", "add", "--transport", "stdio"}
		for _, k := range sortedKeys(l.Env) {
			argv = append(argv, "--env", k+"="+l.Env[k])
		}
		argv = append(argv, l.Name, "--", l.Command)
		argv = append(argv, l.Args...)
		return execrunner.DisplayCommandLine("claude", argv) + "\n", nil
	default:
		return "", fmt.Errorf("unknown client %q: use one of %s", client, strings.Join(clientNames, ", "))
	}
}

func marshalIndent(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", err
	}
	return string(b) + "\n", nil
}

var unsafeKey = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// serverKey names the server in the client's configuration: --name, else the
// single app's prefix or binary name, else fisk-mcp.
func serverKey(name string, apps []exposure.App) string {
	if name == "" && len(apps) == 1 {
		name = apps[0].Prefix
		if name == "" {
			name = filepath.Base(apps[0].Path)
		}
	}
	name = strings.Trim(unsafeKey.ReplaceAllString(name, "-"), "-")
	if name == "" {
		return "fisk-mcp"
	}
	return name
}

// absoluteApps renders APP arguments with absolute binary paths.
func absoluteApps(apps []string) ([]string, error) {
	out := make([]string, 0, len(apps))
	for _, a := range apps {
		app, err := exposure.ParseApp(a)
		if err != nil {
			return nil, err
		}
		abs, err := resolveBinary(app.Path)
		if err != nil {
			return nil, err
		}
		if app.Prefix != "" {
			abs = app.Prefix + "=" + abs
		}
		out = append(out, abs)
	}
	return out, nil
}

func parseEnvPairs(pairs []string) (map[string]string, error) {
	env := map[string]string{}
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--env %q: write KEY=VALUE", kv)
		}
		env[k] = v
	}
	return env, nil
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
