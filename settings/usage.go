package settings

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/internal/editdist"
)

// Run parses args with app and runs the command they select, reporting an
// error on stderr, and returns the exit code. A command line the
// application cannot parse gets the error, a guess at what was meant, one
// line of usage and where the full help is: the whole help would scroll
// the error away. why says, by command, why a flag another command takes
// is not this one's.
func Run(app *fisk.Application, args []string, stderr io.Writer, why map[string]string) int {
	_, err := app.Parse(args)
	if err == nil {
		return 0
	}
	name := app.Model().Name
	if !isUsageError(err) {
		fmt.Fprintf(stderr, "%s: error: %v\n", name, err)
		return 1
	}
	u := parsed{app: app, name: name, why: why}
	cmd := u.selected(args)
	fmt.Fprintf(stderr, "%s: error: %s\n", name, u.explain(cmd, err))
	path := name
	if cmd != nil {
		path += " " + cmd.FullCommand
	}
	fmt.Fprintf(stderr, "usage: %s\nsee %s --help\n", u.usageLine(cmd), path)
	return 1
}

// parsed is the application a command line was parsed against.
type parsed struct {
	app  *fisk.Application
	name string
	why  map[string]string
}

// isUsageError reports whether err is about the command line's shape
// rather than what a command found when it ran.
func isUsageError(err error) bool {
	var ve *ValueError
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
func (u parsed) selected(args []string) *fisk.CmdModel {
	pc, _ := u.app.ParseContext(args)
	if pc == nil || pc.SelectedCommand == nil {
		return nil
	}
	for _, m := range u.app.Model().Commands {
		if m.FullCommand == pc.SelectedCommand.FullCommand() {
			return m
		}
	}
	return nil
}

// explain rewrites fisk's error for an unknown flag or command, which
// names no alternative, into one that suggests the nearest.
func (u parsed) explain(cmd *fisk.CmdModel, err error) string {
	_, quoted, _ := strings.Cut(err.Error(), "'")
	token, _, _ := strings.Cut(quoted, "'")
	model := u.app.Model()
	switch {
	case errors.Is(err, fisk.ErrUnknownLongFlag):
		name := strings.TrimPrefix(token, "--")
		if cmd != nil {
			var others []string
			for _, m := range model.Commands {
				if m.FullCommand != cmd.FullCommand && slices.ContainsFunc(m.Flags, func(f *fisk.FlagModel) bool { return f.Name == name && !f.Hidden }) {
					others = append(others, u.name+" "+m.FullCommand)
				}
			}
			if len(others) > 0 {
				why := ""
				if w := u.why[cmd.FullCommand]; w != "" {
					why = " (" + w + ")"
				}
				return fmt.Sprintf("%s %s does not take %s%s; it is a flag of %s", u.name, cmd.FullCommand, token, why, strings.Join(others, " and "))
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
func (u parsed) usageLine(cmd *fisk.CmdModel) string {
	if cmd == nil {
		return u.name + " COMMAND [flags] ..."
	}
	line := u.name + " " + cmd.FullCommand + " [flags]"
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
