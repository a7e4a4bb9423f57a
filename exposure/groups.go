package exposure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/choria-io/fisk"
)

// groupTags reads the tags of an application's grouping nodes. A group is
// never a tool, so the only meaning ai:deny can have on one is for every
// command beneath it: such subtrees are denied (the safe reading). Any
// other reserved tag on a group has no effect, which the operator is told
// in a warning rather than left to assume the commands are gated or
// annotated. Both results are sorted, so they do not depend on the order
// of discovery.
func groupTags(a *LoadedApp) (denied map[string]bool, warnings []string) {
	denied = map[string]bool{}
	var walk func(cmds []*fisk.CmdModel, parent []string)
	walk = func(cmds []*fisk.CmdModel, parent []string) {
		for _, c := range cmds {
			if c == nil || c.Hidden || c.CmdGroupModel == nil || len(c.Commands) == 0 {
				continue
			}
			path := append(slices.Clone(parent), c.Name)
			key := strings.Join(path, " ")
			for _, t := range c.Tags {
				switch {
				case t == TagDeny:
					denied[key] = true
				case reservedTags[t]:
					warnings = append(warnings, fmt.Sprintf("application %q group %q: tag %q has no effect on a group; tag the commands beneath it", a.label(), key, t))
				}
			}
			walk(c.Commands, path)
		}
	}
	if a.Model.CmdGroupModel != nil {
		walk(a.Model.Commands, nil)
	}
	slices.Sort(warnings)
	return denied, warnings
}

// deniedBelow reports whether any group above the command at path is denied.
func deniedBelow(denied map[string]bool, path []string) bool {
	if len(denied) == 0 {
		return false
	}
	for i := 1; i < len(path); i++ {
		if denied[strings.Join(path[:i], " ")] {
			return true
		}
	}
	return false
}
