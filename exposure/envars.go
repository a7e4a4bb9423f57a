package exposure

import (
	"slices"

	"github.com/choria-io/fisk"
)

// EnvDeclarer is a tool whose application declares environment variables
// for its flags and arguments (fisk's Envar): the application's own
// settings, its credentials among them. The serving surface keeps them in
// the commands' environment although they may look like credentials
// (execrunner's scrubbing rule), and still redacts their values.
type EnvDeclarer interface {
	// Envars returns the names, sorted and unique.
	Envars() []string
}

// declaredEnvars returns the environment variables m declares anywhere:
// for an application-level flag or argument, or for one of any command.
// The whole application's, not one command's: fisk reads an application
// flag's variable for every command, and the set is what the operator is
// shown as kept for the app.
func declaredEnvars(m *fisk.ApplicationModel) []string {
	var out []string
	add := func(flags *fisk.FlagGroupModel, args *fisk.ArgGroupModel) {
		if flags != nil {
			for _, f := range flags.Flags {
				if f.Envar != "" {
					out = append(out, f.Envar)
				}
			}
		}
		if args != nil {
			for _, a := range args.Args {
				if a.Envar != "" {
					out = append(out, a.Envar)
				}
			}
		}
	}
	var walk func(cmds *fisk.CmdGroupModel)
	walk = func(cmds *fisk.CmdGroupModel) {
		if cmds == nil {
			return
		}
		for _, c := range cmds.Commands {
			add(c.FlagGroupModel, c.ArgGroupModel)
			walk(c.CmdGroupModel)
		}
	}
	add(m.FlagGroupModel, m.ArgGroupModel)
	walk(m.CmdGroupModel)
	slices.Sort(out)
	return slices.Compact(out)
}
