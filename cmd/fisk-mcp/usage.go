package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/internal/editdist"
	"github.com/fisk-mcp/fisk-mcp/settings"
)

// run parses args and runs the command they select, reporting an error on
// stderr; it returns the exit code. A command line fisk-mcp cannot parse
// gets the error, a guess at what was meant, one line of usage and where
// the full help is: the whole help would scroll the error away.
func (c *cli) run(args []string) int {
	_, err := c.app.Parse(args)
	if err == nil {
		return 0
	}
	if !isUsageError(err) {
		fmt.Fprintf(c.stderr, "fisk-mcp: error: %v\n", err)
		return 1
	}
	cmd := c.selected(args)
	fmt.Fprintf(c.stderr, "fisk-mcp: error: %s\n", c.explain(cmd, err))
	path := "fisk-mcp"
	if cmd != nil {
		path += " " + cmd.FullCommand
	}
	fmt.Fprintf(c.stderr, "usage: %s\nsee %s --help\n", usageLine(cmd), path)
	return 1
}

// isUsageError reports whether err is about the command line's shape
// rather than what a command found when it ran.
func isUsageError(err error) bool {
	var ve *settings.ValueError
	if errors.As(err, &ve) {
		return true
	}
	for _, e := range []error{fisk.ErrUnknownLongFlag, fisk.ErrUnknownShortFlag, fisk.ErrExpectedFlagArgument,
		fisk.ErrSubCommandRequired, fisk.ErrRequiredArgument, fisk.ErrRequiredFlag, fisk.ErrExpectedKnownCommand,
		fisk.ErrFlagCannotRepeat, fisk.ErrUnexpectedArgument} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// selected is the command args name, nil for none.
func (c *cli) selected(args []string) *fisk.CmdModel {
	pc, _ := c.app.ParseContext(args)
	if pc == nil || pc.SelectedCommand == nil {
		return nil
	}
	for _, m := range c.app.Model().Commands {
		if m.FullCommand == pc.SelectedCommand.FullCommand() {
			return m
		}
	}
	return nil
}

// explain rewrites fisk's error for an unknown flag or command, which
// names no alternative, into one that suggests the nearest.
func (c *cli) explain(cmd *fisk.CmdModel, err error) string {
	_, quoted, _ := strings.Cut(err.Error(), "'")
	token, _, _ := strings.Cut(quoted, "'")
	model := c.app.Model()
	switch {
	case errors.Is(err, fisk.ErrUnknownLongFlag):
		name := strings.TrimPrefix(token, "--")
		if cmd != nil {
			var others []string
			for _, m := range model.Commands {
				if m.FullCommand != cmd.FullCommand && slices.ContainsFunc(m.Flags, func(f *fisk.FlagModel) bool { return f.Name == name && !f.Hidden }) {
					others = append(others, "fisk-mcp "+m.FullCommand)
				}
			}
			if len(others) > 0 {
				why := ""
				if w := overStdio[cmd.FullCommand]; w != "" {
					why = " (" + w + ")"
				}
				return fmt.Sprintf("fisk-mcp %s does not take %s%s; it is a flag of %s", cmd.FullCommand, token, why, strings.Join(others, " and "))
			}
		}
		var known []string
		for _, f := range append(slices.Clone(model.Flags), flagsOf(cmd)...) {
			if !f.Hidden {
				known = append(known, f.Name)
			}
		}
		return "unknown flag " + token + didYouMean(name, known, "--")
	case errors.Is(err, fisk.ErrExpectedKnownCommand):
		_, got, _ := strings.Cut(err.Error(), `but got "`)
		got = strings.TrimSuffix(got, `"`)
		var known []string
		for _, m := range model.Commands {
			if !m.Hidden {
				known = append(known, m.Name)
			}
		}
		return fmt.Sprintf("unknown command %q%s", got, didYouMean(got, known, ""))
	}
	return err.Error()
}

// overStdio says why a command that configures a client takes none of
// serve's HTTP flags.
var overStdio = map[string]string{
	"config": "the clients it configures start fisk-mcp serve over stdio",
	"bundle": "Claude Desktop starts a bundle's server over stdio",
}

func flagsOf(cmd *fisk.CmdModel) []*fisk.FlagModel {
	if cmd == nil {
		return nil
	}
	return cmd.Flags
}

// didYouMean suggests the known name nearest to name by edit distance, as
// the configuration file's unknown keys do, or nothing when none is
// plausibly what was meant.
func didYouMean(name string, known []string, prefix string) string {
	best, bestDist := "", max(1, min(3, len(name)/4))+1
	for _, k := range known {
		if d := editdist.Distance(strings.ToLower(name), k, bestDist); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s%s?)", prefix, best)
}

// usageLine is the command's synopsis: usage: fisk-mcp serve [flags] APP...
func usageLine(cmd *fisk.CmdModel) string {
	if cmd == nil {
		return "fisk-mcp COMMAND [flags] ..."
	}
	line := "fisk-mcp " + cmd.FullCommand + " [flags]"
	for _, a := range cmd.Args {
		name := strings.ToUpper(a.Name)
		switch {
		case isCumulative(a):
			line += " " + name + "..."
		case a.Required:
			line += " " + name
		default:
			line += " [" + name + "]"
		}
	}
	return line
}

func isCumulative(a *fisk.ArgModel) bool {
	r, ok := a.Value.(interface{ IsCumulative() bool })
	return ok && r.IsCumulative()
}
