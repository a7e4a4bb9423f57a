package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/clients"
	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/plan"
	"github.com/fisk-mcp/fisk-mcp/server"
)

func (c *cli) runConfig(*fisk.ParseContext) error {
	if err := c.installOpts.check(); err != nil {
		return err
	}
	if c.trust && c.client != "gemini" {
		return fmt.Errorf("--trust is Gemini CLI's (\"trust\": true); %s has no such setting: drop it", clients.Known[c.client].Label)
	}
	p := c.config
	// Render the command line before the configuration file is merged in:
	// the file is passed by path, and its values must not be repeated.
	args, err := p.Args()
	if err != nil {
		return err
	}
	apps, err := exposure.AbsoluteApps(p.AppArgs)
	if err != nil {
		return err
	}
	if clients.Known[c.client].Approval() == clients.ApprovalBrowser {
		p.ApprovalDefault = elicit.ModeBrowser
	}
	if err := p.Load(); err != nil {
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
	env, err := clients.ParseEnv(c.clientEnv)
	if err != nil {
		return err
	}
	served := c.countServed(p, env)
	gated := len(served.Gated)
	if served.Count < 0 {
		gated = -1
	}
	advice := clients.Advise(c.client, served.Count, clients.Deferral{
		Mode: string(p.Defer), Threshold: p.DeferThreshold, Chosen: p.Chosen("defer"),
	})
	approval := withApprovalMode(p, clients.AdviseApproval(c.client, gated, string(p.Serving.Approval.Mode), p.Chosen("approval")))
	args = approval.Apply(advice.Apply(args))
	name := clients.ServerKey(p.Serving.Server.Name, p.Apps)
	if p.Serving.Server.Name == "" {
		// The server names itself as the client knows it: the approval
		// prompt then says which server asks in the words the person
		// registered. A name of the person's own (flag or file) stays.
		args = append(args, "--name="+name)
	}
	l := clients.Launch{
		Name:    name,
		Command: exe,
		Args:    append(append([]string{"serve"}, args...), apps...),
		Env:     env,
		Trust:   c.trust,
	}
	notes := []string{advice.Note, approval.Note}
	if c.client == "codex" {
		mode := p.Serving.Approval.Mode
		browser := mode.UsesBrowser() && (p.Chosen("approval") || len(approval.Args) > 0)
		var note string
		l.Approve, l.PassEnv, note = clients.CodexApprovals(name, served, browser)
		notes = append(notes, note)
	}
	if c.client == "gemini" && !c.trust {
		notes = append(notes, "headless Gemini CLI (gemini -p) shows the tools of trusted servers only: pass --trust to write \"trust\": true, which also skips Gemini CLI's own confirmation of each call (fisk-mcp still asks for gated ones)")
	}
	out, err := clients.Render(c.client, l)
	if err != nil {
		return err
	}
	defer func() {
		for _, note := range notes {
			if note != "" {
				fmt.Fprintf(c.stderr, "note: %s\n", note)
			}
		}
	}()
	if c.installOpts.install {
		return c.install(l, out)
	}
	if _, err := fmt.Fprint(c.stdout, out); err != nil {
		return err
	}
	fmt.Fprintln(c.stderr, clients.Hints[c.client])
	return nil
}

// countServed counts the tools the configured server would serve, and of
// them those that need a person's approval and those that, ungated, are
// not read-only, loading the apps as serve does, in the environment the
// client adds. When the apps cannot be loaded here (the client's
// environment may differ) the count is negative, with a warning: the
// configuration is still written.
func (c *cli) countServed(p *plan.Plan, env map[string]string) clients.Served {
	extra := make([]string, 0, len(env))
	for k, v := range env {
		extra = append(extra, k+"="+v)
	}
	set, err := plan.NewLoader(p, extra...).Load(c.ctx)
	if err != nil {
		fmt.Fprintf(c.stderr, "warning: the tools to serve could not be counted, so deferral is left as set and approval is set as if some were gated: %v\n", err)
		return clients.Served{Count: -1}
	}
	return clients.ServedOf(set, server.Config{Defer: p.Defer, DeferThreshold: p.DeferThreshold})
}

// withApprovalMode adds the browser mode to a's arguments when the person
// gave a flag that goes with it (--approval-opener) under the client's
// default browser approval (plan.Plan.ApprovalDefault) and a adds none,
// as without gated tools: serve refuses such a flag without the mode.
func withApprovalMode(p *plan.Plan, a clients.Advice) clients.Advice {
	mode := p.Serving.Approval.Mode
	if len(a.Args) == 0 && !p.Chosen("approval") && mode.UsesBrowser() && (p.Chosen("approval-opener") || p.Chosen("approver-token-file")) {
		a.Args = []string{"--approval=" + string(mode)}
	}
	return a
}
