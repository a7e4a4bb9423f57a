package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/bundle"
	"github.com/fisk-mcp/fisk-mcp/clients"
	"github.com/fisk-mcp/fisk-mcp/server"
)

// bundleFlags are bundle's own flags, beside the serving settings.
type bundleFlags struct {
	output, version, author string
	installed               bool
}

const bundleHelp = `Writes an MCP Bundle that Claude Desktop installs with a double click: the
manifest, this fisk-mcp executable and each APP (or, with --installed-apps, a
reference to its path), for the platform fisk-mcp runs on; build it on the
Mac it is for. The settings given as flags are carried as the arguments of
fisk-mcp serve, so they must hold no secret. The environment variables an
app declares for its application-level flags (a server URL, a credentials
file, a password) become settings Claude Desktop asks for and passes in
the server's environment, sensitive ones masked and stored securely. The same
inputs give a byte-identical bundle.`

func (c *cli) registerBundle(app *fisk.Application) {
	cmd := app.Command("bundle", "Write a Claude Desktop bundle (.mcpb) that serves the apps' commands").Action(c.runBundle)
	cmd.HelpLong(bundleHelp)
	cmd.Flag("output", "The bundle to write, NAME.mcpb").Short('o').Required().PlaceHolder("NAME.mcpb").StringVar(&c.bundleFlags.output)
	cmd.Flag("installed-apps", "Refer to each APP at its absolute path instead of copying it: for apps installed at the same path where the bundle runs").UnNegatableBoolVar(&c.bundleFlags.installed)
	cmd.Flag("bundle-version", "The bundle's semantic version (default: the single app's version)").PlaceHolder("X.Y.Z").StringVar(&c.bundleFlags.version)
	cmd.Flag("author", "Who made the bundle (default: the app's author)").StringVar(&c.bundleFlags.author)
	c.bundle.register(cmd)
}

func (c *cli) runBundle(*fisk.ParseContext) error {
	p, f := c.bundle, c.bundleFlags
	switch {
	case !strings.HasSuffix(f.output, ".mcpb"):
		return fmt.Errorf("--output %q: name the bundle NAME.mcpb, the extension Claude Desktop installs", f.output)
	case p.configFile != "":
		return errors.New("--config: a bundle carries its settings as flags, and a configuration file would stay on this machine; give the settings as flags")
	}
	args, err := p.set.Args()
	if err != nil {
		return err
	}
	if err := p.load(); err != nil {
		return err
	}
	if p.Serving.HTTP.Addr != "" || p.Serving.stateKeyFile != "" {
		return errors.New("Claude Desktop starts a bundle's server over stdio, one process of its own: drop --http and --state-key-file")
	}
	host, err := bundle.Host()
	if err != nil {
		return err
	}
	exe, err := c.executable()
	if err != nil {
		return fmt.Errorf("locating the fisk-mcp binary: %w; run fisk-mcp by its path", err)
	}
	spec := bundle.Spec{Platform: host, Server: exe, ServerVersion: buildVersion(), Author: f.author, Version: f.version}
	for _, a := range p.Apps {
		// An installed app is the person's own build; one for Windows
		// is refused all the same.
		if err := bundle.CheckBinary(a.Path, host); err != nil && !(f.installed && errors.Is(err, bundle.ErrPlatformMismatch)) {
			return err
		}
		spec.Apps = append(spec.Apps, bundle.App{Prefix: a.Prefix, Path: a.Path, Installed: f.installed})
	}
	loaded, set, err := newLoader(p).loadApps(c.ctx)
	if err != nil {
		return err
	}
	if err := spec.Describe(loaded, p.Policy.SecretFlags); err != nil {
		return err
	}
	advice := clients.Advise("claude-desktop", server.ServedCount(set), clients.Deferral{Mode: string(p.Defer), Threshold: p.DeferThreshold, Chosen: p.set.Chosen("defer")})
	spec.Name, spec.Tools, spec.ServeArgs = serverKey(p.Serving.Server.Name, p.Apps), bundle.Tools(set), advice.Apply(args)
	if p.Serving.Server.Name == "" {
		spec.ServeArgs = append(spec.ServeArgs, "--name="+spec.Name)
	}
	if err := bundle.WriteFile(f.output, spec); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "wrote %s: %d tools of %s for %s; open it in Claude Desktop to install it\n", f.output, len(spec.Tools), spec.DisplayName, host)
	if n := spec.Gated(); n > 0 {
		fmt.Fprintf(c.stderr, "note: %d tools are gated, and Claude Desktop cannot ask a person to approve them (it has no elicitation): their calls are refused\n", n)
	}
	if advice.Note != "" {
		fmt.Fprintf(c.stderr, "note: %s\n", advice.Note)
	}
	return nil
}
