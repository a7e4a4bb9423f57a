package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"github.com/fisk-mcp/fisk-mcp/clients"
)

// installOptions are config's flags for writing the entry in place.
type installOptions struct {
	install, force bool
	file           string // --client-config: the client's file, elsewhere than its documented place
}

// check refuses the flags of --install without it: a --force given to
// printing would silently do nothing.
func (o installOptions) check() error {
	if !o.install && (o.force || o.file != "") {
		return errors.New("--force and --client-config go with --install: add --install to write the client's file, or drop them to print the entry")
	}
	return nil
}

// install puts l into the client's configuration: through Claude Code's
// own command, which rewrites its file while it runs, or by merging into
// the client's file (clients.Install). Reports go to stderr.
func (c *cli) install(l clients.Launch, rendered string) error {
	if c.client == "claude-code" {
		return c.installClaudeCode(l, rendered)
	}
	file := c.installOpts.file
	if file == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("finding the home directory: %w; pass --client-config FILE", err)
		}
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		if file, err = clients.ConfigFile(c.client, clients.Where{GOOS: runtime.GOOS, Home: home, Workdir: wd, Getenv: os.Getenv}); err != nil {
			return err
		}
	}
	res, err := clients.Install(c.client, l, file, c.installOpts.force)
	switch {
	case errors.Is(err, clients.ErrExists):
		return fmt.Errorf("%s already configures a different server named %q: pass --force to replace it (a backup is kept), or --name to install under another name", res.File, l.Name)
	case err != nil:
		return err
	case res.Unchanged:
		fmt.Fprintf(c.stderr, "%s already has this entry for %q: nothing changed\n", res.File, l.Name)
	case res.Backup != "":
		fmt.Fprintf(c.stderr, "installed %q into %s (the previous file is kept as %s); restart %s to load it\n", l.Name, res.File, res.Backup, clients.Known[c.client].Label)
	default:
		fmt.Fprintf(c.stderr, "installed %q into %s, a new file; restart %s to load it\n", l.Name, res.File, clients.Known[c.client].Label)
	}
	return nil
}

// installClaudeCode runs claude mcp add, after claude mcp remove when
// forced (Claude Code refuses a name it has). Without claude on PATH the
// command is printed for the person to run.
func (c *cli) installClaudeCode(l clients.Launch, rendered string) error {
	if c.installOpts.file != "" {
		//lint:ignore ST1005 the message begins with the client's name
		return errors.New("Claude Code is configured through its claude mcp add command, not a file: drop --client-config")
	}
	if !c.installOpts.force && c.claudeCodeHas(l) {
		fmt.Fprintf(c.stderr, "Claude Code already has this entry for %q in this project: nothing changed\n", l.Name)
		return nil
	}
	claude, err := exec.LookPath("claude")
	if err != nil {
		fmt.Fprint(c.stdout, rendered)
		return errors.New("claude (Claude Code's command) is not on PATH: run the command above yourself, or install Claude Code and run config --install again")
	}
	if c.installOpts.force {
		rm := exec.CommandContext(c.ctx, claude, "mcp", "remove", l.Name)
		rm.Stdout, rm.Stderr = c.stderr, c.stderr
		_ = rm.Run() // absent is fine: the add below says what is wrong
	}
	add := exec.CommandContext(c.ctx, claude, clients.ClaudeAddArgs(l)...)
	add.Stdout, add.Stderr = c.stderr, c.stderr
	if err := add.Run(); err != nil {
		return fmt.Errorf("claude mcp add %s: %w; if the name is taken, pass --force to replace it, or --name to choose another", l.Name, err)
	}
	fmt.Fprintf(c.stderr, "registered %q with Claude Code (%s)\n", l.Name, claude)
	return nil
}

// claudeCodeHas reports whether Claude Code registers l for the working
// directory already, so that installing again changes nothing, as for the
// clients whose file is merged.
func (c *cli) claudeCodeHas(l clients.Launch) bool {
	home, errHome := os.UserHomeDir()
	wd, errWd := os.Getwd()
	return errHome == nil && errWd == nil && clients.ClaudeCodeHas(l, clients.Where{GOOS: runtime.GOOS, Home: home, Workdir: wd, Getenv: os.Getenv})
}
