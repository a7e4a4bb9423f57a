package main

import (
	"errors"
	"fmt"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/bundle"
	"github.com/fisk-mcp/fisk-mcp/clients"
	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/plan"
)

func (c *cli) registerBundle(app *fisk.Application) {
	cmd := app.Command("bundle", "Write a Claude Desktop bundle (.mcpb) that serves the apps' commands").Action(c.runBundle)
	cmd.HelpLong("The bundle holds this fisk-mcp and each APP (with --installed-apps, its path), for this platform. The flags become serve's arguments, so they must hold no secret, nor \"${\", which Claude Desktop substitutes; the environment variables the apps read for their global flags become settings Claude Desktop asks for and passes in the server's environment. The same inputs give the same bytes.")
	cmd.Flag("output", "The bundle to write, NAME.mcpb").Short('o').Required().PlaceHolder("NAME.mcpb").StringVar(&c.bundleOut)
	cmd.Flag("installed-apps", "Refer to each APP at its absolute path instead of copying it: for apps installed at the same path where the bundle runs").UnNegatableBoolVar(&c.bundleInstalled)
	cmd.Flag("bundle-version", "The bundle's semantic version (default: the single app's version)").PlaceHolder("X.Y.Z").StringVar(&c.bundleVersion)
	c.bundle.Register(cmd)
}

// runBundle writes the bundle of the settings as given: the command line
// is rendered before anything is merged into it, as config does.
func (c *cli) runBundle(*fisk.ParseContext) error {
	p := c.bundle
	args, err := p.Args()
	p.ApprovalDefault = elicit.ModeBrowser // Claude Desktop's, which cannot ask
	if err == nil {
		err = p.Load()
	}
	switch {
	case err != nil:
		return err
	case p.ConfigFile != "":
		return errors.New("--config: a bundle carries its settings as flags, and a configuration file would stay on this machine; give the settings as flags")
	case len(p.Serving.SearchRequestFiles) > 0:
		return errors.New("--search-requests: a bundle carries its settings as flags, and the file of requests would stay on this machine; serve it with fisk-mcp config claude-desktop instead, or leave it out")
	case p.Serving.HTTP.Addr != "" || p.Serving.StateKeyFile != "":
		//lint:ignore ST1005 the message begins with the client's name
		return errors.New("Claude Desktop starts a bundle's server over stdio, one process of its own: drop --http and --state-key-file")
	}
	spec := bundle.Spec{ServerVersion: buildVersion(), Version: c.bundleVersion, Name: clients.ServerKey(p.Serving.Server.Name, p.Apps), ServeArgs: args}
	if p.Serving.Server.Name == "" {
		spec.ServeArgs = append(spec.ServeArgs, "--name="+spec.Name)
	}
	l := plan.NewLoader(p)
	if err := spec.ForHost(p.Apps, c.bundleInstalled); err != nil {
		return err
	} else if spec.Server, err = c.executable(); err != nil {
		return fmt.Errorf("locating the fisk-mcp binary: %w; run fisk-mcp by its path", err)
	} else if err := spec.Load(c.ctx, l.Apps, l.Policy, l.Env.For(nil)); err != nil {
		return err
	}
	// A bundle is Claude Desktop's, which cannot ask: its gated tools are
	// approved in the browser, as its configuration would have them.
	approval := withApprovalMode(p, clients.AdviseApproval("claude-desktop", spec.Gated(), string(p.Serving.Approval.Mode), p.Chosen("approval")))
	spec.ServeArgs = approval.Apply(spec.ServeArgs)
	if err := bundle.WriteFile(c.bundleOut, spec); err != nil {
		return err
	}
	fmt.Fprintln(c.stderr, bundleWritten(c.bundleOut, len(spec.Tools), spec.DisplayName, spec.Platform))
	notes := spec.Notes()
	if approval.Note != "" {
		notes = []string{approval.Note} // says what becomes of the gated tools, in place of the bundle's
	}
	for _, note := range notes {
		fmt.Fprintf(c.stderr, "note: %s\n", note)
	}
	return nil
}

// bundleWritten says what was written and how it is installed: Claude
// Desktop runs on macOS and Windows, not on Linux, and a bundle holds the
// binaries of the platform it was built on.
func bundleWritten(file string, tools int, name string, p bundle.Platform) string {
	what := fmt.Sprintf("wrote %s: %d tools of %s for %s", file, tools, name, p)
	if p.OS == "darwin" {
		return what + "; open it in Claude Desktop to install it"
	}
	return what + ", for an MCP host on " + p.OS + " that installs .mcpb bundles; Claude Desktop runs on macOS and Windows only: " +
		"for it, run fisk-mcp bundle on the Mac it is for, or for a client on this machine run fisk-mcp config CLIENT --install APP..."
}
