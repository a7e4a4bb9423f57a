// Command fisk-mcp serves the commands of fisk command-line applications as
// MCP tools.
//
//	fisk-mcp serve [flags] APP...     serve over stdio (default) or streamable HTTP
//	fisk-mcp tools [flags] APP...     print what would be served
//	fisk-mcp config CLIENT [flags] APP...  print a client configuration, or --install it
//	fisk-mcp bundle [flags] APP... -o NAME.mcpb  write a Claude Desktop bundle
//	fisk-mcp init [-o FILE] APP...   draft a configuration file from the apps' tags
//	fisk-mcp version
//
// This package is wiring only: package plan takes each setting from the
// flags and the configuration file and resolves them into a plan whose
// parts are the exposure.Policy, exposure.App, server.Config and
// elicit.Options the work is done with, in introspect, exposure, server,
// elicit and execrunner; this package starts and stops what the plan
// describes, and clients and listing render what config and tools print.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/clients"
	"github.com/fisk-mcp/fisk-mcp/plan"
	"github.com/fisk-mcp/fisk-mcp/settings"
)

// cli is the fisk-mcp command line.
type cli struct {
	app            *fisk.Application
	ctx            context.Context
	stdout, stderr io.Writer

	serve, tools, config, bundle *plan.Plan // each command's settings
	toolsJSON                    bool
	client                       string
	clientEnv                    []string
	installOpts                  installOptions
	trust                        bool
	bundleOut, bundleVersion     string
	bundleInstalled              bool

	// executable locates the running fisk-mcp binary (os.Executable).
	executable func() (string, error)

	// dryRun stops serve after validation; tests inspect planned.
	dryRun  bool
	planned *plan.Plan
}

func newCLI(ctx context.Context, stdout, stderr io.Writer) *cli {
	c := &cli{ctx: ctx, executable: os.Executable, stdout: stdout, stderr: stderr, serve: plan.New(true), tools: plan.New(false), config: plan.New(true), bundle: plan.New(true)}
	app := fisk.New("fisk-mcp", "Serve the commands of fisk command-line applications as MCP tools.")
	app.Version(buildVersion())
	app.Writer(stdout)
	app.ErrorWriter(stderr)
	app.UsageWriter(stderr)
	c.app = app

	serve := app.Command("serve", "Serve the apps' commands as MCP tools over stdio (default) or streamable HTTP").Action(c.runServe)
	serve.HelpLong(serveHelp)
	c.serve.Register(serve)

	tools := app.Command("tools", "Print the tools that serve would expose: name, app, behaviour, gate, tags and description").Action(c.runTools)
	tools.Flag("json", "Print JSON for machines instead of a table").UnNegatableBoolVar(&c.toolsJSON)
	c.tools.Register(tools)

	config := app.Command("config", "Print a ready-to-paste configuration that makes an MCP client run fisk-mcp serve over stdio").Action(c.runConfig)
	config.HelpLong(configHelp)
	config.Arg("client", "The client: "+strings.Join(clients.Names[:len(clients.Names)-1], ", ")+" or "+clients.Names[len(clients.Names)-1]).Required().EnumVar(&c.client, clients.Names...)
	config.Flag("env", "Set KEY=VALUE in the server's environment in the generated configuration (repeatable)").PlaceHolder("KEY=VALUE").StringsVar(&c.clientEnv)
	config.Flag("install", "Write the entry into the client's own configuration (claude-code: run claude mcp add) instead of printing it").UnNegatableBoolVar(&c.installOpts.install)
	config.Flag("force", "With --install, replace a different server of the same name").UnNegatableBoolVar(&c.installOpts.force)
	config.Flag("trust", "gemini: mark the server trusted (\"trust\": true), which headless gemini -p needs to show its tools").UnNegatableBoolVar(&c.trust)
	config.Flag("client-config", "With --install, the client's configuration file to write, instead of its documented place").PlaceHolder("FILE").StringVar(&c.installOpts.file)
	c.config.Register(config)
	c.registerBundle(app)
	c.registerInit(app)
	c.registerPolicy(app)

	c.registerVersion(app)
	return c
}

const serveHelp = `Each runnable, visible command of each APP becomes one tool named by its
command path joined with "_" (PREFIX=PATH prefixes the names). Commands tagged
ai:deny are never served. Commands tagged ai:confirm, or with a --confirm-tag,
are gated: each call is shown to a person through the client's elicitation and
runs only on an explicit approval; a client that cannot ask refuses them.

Commands run as an argument vector, never through a shell, with the
environment of fisk-mcp minus what looks like a credential (names with TOKEN,
SECRET, PASSWORD, _KEY..., URLs with a password, agent sockets; --scrub-env
adds names), except the variables an app declares for its own flags and
--keep-env names; the values of all of them are redacted from output.
"fisk-mcp tools" shows the rule and what it scrubs.

Over stdio nothing but the protocol is written to stdout; logs go to stderr.
SIGINT and SIGTERM drain in-flight calls; with --watch, SIGHUP reloads.`

const configHelp = `Paths to fisk-mcp, to every APP and to every file flag are made absolute,
so the configuration works whatever directory the client starts in.

  claude-desktop  the "mcpServers" entry for claude_desktop_config.json
  claude-code     the "claude mcp add" command line, with --defer=never:
                  Claude Code defers every MCP tool behind its own tool search
  vscode          the "servers" entry for .vscode/mcp.json
  copilot         the "mcpServers" entry for ~/.copilot/mcp-config.json
                  (Copilot CLI; it does not read .vscode/mcp.json)
  cursor          the "mcpServers" entry for .cursor/mcp.json
  windsurf        the "mcpServers" entry for ~/.codeium/windsurf/mcp_config.json
  codex           the [mcp_servers.NAME] table for ~/.codex/config.toml, with
                  approval_mode = "approve" for the gated tools (fisk-mcp asks
                  for them in the browser; codex exec refuses any tool that
                  is not read-only and not approved) and env_vars for the
                  browser's opener
  gemini          the "mcpServers" entry for ~/.gemini/settings.json;
                  --trust adds "trust": true, without which headless
                  gemini -p shows none of the server's tools
  opencode        the "mcp" entry for ~/.config/opencode/opencode.json

--install writes the entry into that file (vscode: .vscode/mcp.json here;
claude-desktop: its file on macOS and Windows; codex, copilot and gemini
under $CODEX_HOME, $COPILOT_HOME and $GEMINI_CLI_HOME when set, opencode
under $XDG_CONFIG_HOME; --client-config FILE for any other), merging:
other servers, unknown keys and comments (JSONC, TOML) are kept, a
different server of the same name is replaced only with --force, the
previous file is kept as FILE.YYYYMMDDTHHMMSSZ.bak, and the file is
replaced atomically (a symlink's target is written), only in a directory
of yours that others may not write. A malformed file is left alone. For
claude-code it runs claude mcp add.

Clients that cannot ask their person (Claude Desktop, Cursor, Windsurf,
Codex, Gemini CLI, opencode) get --approval=browser when the app has gated
tools, and the browser approval flags (--approval-opener) with it.

The apps are loaded to count their tools: for a client that takes at most so
many (VS Code 128 with its own, Cursor 80, Windsurf 50), a larger set is
deferred, with --defer=always unless the settings already defer it; a note
on stderr says so.`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	c := newCLI(ctx, os.Stdout, os.Stderr)
	code := c.run(os.Args[1:])
	stop()
	os.Exit(code)
}

// run parses args and runs the command they select; see settings.Run.
func (c *cli) run(args []string) int {
	return settings.Run(c.app, args, c.stderr, map[string]string{
		"config": "the clients it configures start fisk-mcp serve over stdio",
		"bundle": "Claude Desktop starts a bundle's server over stdio",
	})
}
