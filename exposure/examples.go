package exposure

import (
	"maps"
	"slices"
	"strings"

	"github.com/choria-io/fisk"
)

// indexExamples attributes the cheat sheets of an application to its
// visible leaves, by full command (path with spaces).
//
// A cheat sheet is labelled with a group or a command ("stream"), but its
// lines run many commands ("nats stream add", "nats stream rm ORDERS"), and
// what it says about one of them is what a search should find the command
// by. So the sheet is read line by line: a line that runs a visible leaf,
// after optional VAR=value assignments and the application's name, named by
// its path or by aliases of the path (nats obj rm), is an example of that
// leaf, and its note is every comment above it in its paragraph (a
// paragraph's first comment is usually a heading for all its lines). Lines
// that run nothing the application serves, and prose, are ignored. The
// sheets are those of the application (ApplicationModel.Cheats, the merged
// set) and any a command carries that the merged set lacks; a sheet given
// twice counts once.
func indexExamples(m *fisk.ApplicationModel) map[string][]Example {
	if m == nil || m.CmdGroupModel == nil {
		return nil
	}
	var sheets []string
	for _, label := range slices.Sorted(maps.Keys(m.Cheats)) {
		sheets = append(sheets, m.Cheats[label])
	}
	var commandSheets func([]*fisk.CmdModel)
	commandSheets = func(cmds []*fisk.CmdModel) {
		for _, c := range cmds {
			if c == nil {
				continue
			}
			if c.Cheat != "" {
				sheets = append(sheets, c.Cheat)
			}
			if c.CmdGroupModel != nil {
				commandSheets(c.Commands)
			}
		}
	}
	commandSheets(m.Commands)

	out := map[string][]Example{}
	read := map[string]bool{}
	for _, sheet := range sheets {
		if read[sheet] {
			continue
		}
		read[sheet] = true
		var notes []string
		for line := range strings.Lines(sheet) {
			line = strings.TrimSpace(line)
			switch {
			case line == "":
				notes = nil
			case strings.HasPrefix(line, "#"):
				if note := strings.TrimSpace(strings.TrimLeft(line, "#")); note != "" {
					notes = append(notes, note)
				}
			default:
				path := resolveExample(m, line)
				if path == "" {
					continue
				}
				ex := Example{Note: strings.Join(notes, "\n"), Command: line}
				if !slices.Contains(out[path], ex) {
					out[path] = append(out[path], ex)
				}
			}
		}
	}
	return out
}

// resolveExample returns the full command of the visible leaf a command
// line runs, or "" when it runs none. Flags before the leaf is reached are
// skipped; a group the line stops at runs its default command, if any.
func resolveExample(m *fisk.ApplicationModel, line string) string {
	words := strings.Fields(line)
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) > 0 && words[0] == m.Name {
		words = words[1:]
	}
	var path []string
	cmds := m.Commands
	for {
		var next *fisk.CmdModel
		for len(words) > 0 && strings.HasPrefix(words[0], "-") {
			words = words[1:]
		}
		if len(words) > 0 {
			next = visibleChild(cmds, func(c *fisk.CmdModel) bool {
				return c.Name == words[0] || slices.Contains(c.Aliases, words[0])
			})
		}
		if next == nil && len(path) > 0 {
			next = visibleChild(cmds, func(c *fisk.CmdModel) bool { return c.Default })
		} else if next != nil {
			words = words[1:]
		}
		if next == nil {
			return ""
		}
		path = append(path, next.Name)
		if next.CmdGroupModel == nil || len(next.Commands) == 0 {
			return strings.Join(path, " ")
		}
		cmds = next.Commands
	}
}

func visibleChild(cmds []*fisk.CmdModel, match func(*fisk.CmdModel) bool) *fisk.CmdModel {
	for _, c := range cmds {
		if c != nil && !c.Hidden && match(c) {
			return c
		}
	}
	return nil
}

// isAssignment reports whether word sets an environment variable
// (EDITOR=vi) rather than naming a command.
func isAssignment(word string) bool {
	name, _, ok := strings.Cut(word, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
