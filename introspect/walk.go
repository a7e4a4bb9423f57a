package introspect

import (
	"strings"

	"github.com/choria-io/fisk"
)

// Leaf is one runnable command: a node of the tree without subcommands.
type Leaf struct {
	// Path is the command path from the application root, one name per
	// level (fisk does not serialise FullCommand, so Walk rebuilds it).
	// Each leaf owns its slice.
	Path []string
	// Command is the node in the model Walk was given; treat it as
	// read-only, it is shared with the model.
	Command *fisk.CmdModel
	// Aliases are the other names the application accepts for each level
	// of Path: Aliases[i] are those of Path[i] (stream rm is also stream
	// delete). It is nil when no level has any, else as long as Path, and
	// shares its inner slices with the model.
	Aliases [][]string
}

// Name is the leaf's path joined with "_" (auth user add -> auth_user_add).
func (l Leaf) Name() string { return strings.Join(l.Path, "_") }

// FullCommand is the leaf's path joined with spaces, as typed on a command line.
func (l Leaf) FullCommand() string { return strings.Join(l.Path, " ") }

// Walk returns the runnable leaves of app in tree order. Hidden commands and
// their whole subtrees are skipped (an application hides what it does not
// want driven); a node with subcommands is a group, never a leaf, even when
// all its children are hidden (it cannot run on its own). A visible leaf
// without a precomputed schema or restricted schema fails the walk with a
// *MissingSchemaError naming it: exposing it without one would mean guessing
// its arguments.
func Walk(app *fisk.ApplicationModel) ([]Leaf, error) {
	if app == nil || app.CmdGroupModel == nil {
		return nil, nil
	}
	w := walker{}
	w.walk(app.Commands, nil, nil)
	if len(w.missing) > 0 {
		return nil, &MissingSchemaError{Commands: w.missing}
	}
	return w.leaves, nil
}

type walker struct {
	leaves  []Leaf
	missing []string
}

// walk visits cmds below parent; aliases are those of parent's levels, nil
// when none has any.
func (w *walker) walk(cmds []*fisk.CmdModel, parent []string, aliases [][]string) {
	for _, cmd := range cmds {
		if cmd == nil || cmd.Hidden {
			continue
		}
		path := make([]string, len(parent)+1)
		copy(path, parent)
		path[len(parent)] = cmd.Name
		levels := aliases
		if levels != nil || len(cmd.Aliases) > 0 {
			levels = make([][]string, len(path))
			copy(levels, aliases)
			levels[len(parent)] = cmd.Aliases
		}
		if cmd.CmdGroupModel != nil && len(cmd.Commands) > 0 {
			w.walk(cmd.Commands, path, levels)
			continue
		}
		if cmd.Schema == nil || cmd.RestrictedSchema == nil {
			w.missing = append(w.missing, strings.Join(path, " "))
			continue
		}
		w.leaves = append(w.leaves, Leaf{Path: path, Command: cmd, Aliases: levels})
	}
}
