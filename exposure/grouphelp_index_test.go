package exposure

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
)

// scannedGroupHelp is groupHelp as a walk down the path finds it,
// scanning each group's commands for the next name: the reference the
// index must agree with.
func scannedGroupHelp(m *fisk.ApplicationModel, path []string) []string {
	if m == nil || m.CmdGroupModel == nil || len(path) < 2 {
		return nil
	}
	var out []string
	cmds := m.Commands
	for _, name := range path[:len(path)-1] {
		i := slices.IndexFunc(cmds, func(c *fisk.CmdModel) bool { return c != nil && c.Name == name })
		if i < 0 || cmds[i].CmdGroupModel == nil {
			return nil
		}
		line, _, _ := strings.Cut(strings.TrimSpace(cmds[i].Help), "\n")
		out = append(out, execrunner.SanitizeOutput(strings.TrimSpace(line)))
		cmds = cmds[i].Commands
	}
	return out
}

// generatedModel is a random command tree: groups of random width and
// depth, some names repeated among siblings, helps of several lines.
func generatedModel(r *rand.Rand) (*fisk.ApplicationModel, [][]string) {
	var paths [][]string
	var grow func(path []string, depth int) []*fisk.CmdModel
	grow = func(path []string, depth int) []*fisk.CmdModel {
		var cmds []*fisk.CmdModel
		for range 1 + r.IntN(6) {
			name := fmt.Sprintf("c%d", r.IntN(5))
			p := append(slices.Clone(path), name)
			c := &fisk.CmdModel{Name: name, Help: fmt.Sprintf(" %s help\nmore %d ", strings.Join(p, "-"), r.IntN(9))}
			if depth < 3 && r.IntN(2) == 0 {
				c.CmdGroupModel = &fisk.CmdGroupModel{Commands: grow(p, depth+1)}
			} else {
				paths = append(paths, p)
			}
			cmds = append(cmds, c)
		}
		return cmds
	}
	m := &fisk.ApplicationModel{CmdGroupModel: &fisk.CmdGroupModel{Commands: grow(nil, 0)}}
	paths = append(paths, []string{"missing", "x"}, []string{"c1"}, nil)
	return m, paths
}

// TestGroupHelpIndexAgreesWithAWalkDownThePath on 300 random trees, at
// every leaf and at paths that are not in the tree.
func TestGroupHelpIndexAgreesWithAWalkDownThePath(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		m, paths := generatedModel(r)
		idx := indexGroupHelp(m)
		for _, p := range paths {
			if got, want := idx.of(p), scannedGroupHelp(m, p); !slices.Equal(got, want) {
				t.Fatalf("at %q the index gives %q, the walk %q", p, got, want)
			}
		}
	}
	if got := indexGroupHelp(nil).of([]string{"a", "b"}); got != nil {
		t.Errorf("a nil model gives %q", got)
	}
}

// BenchmarkGroupHelpOfAWideGroup times the group help of every command of
// one group 2,000 and 20,000 wide, beside 2,000 or 20,000 other groups:
// with the index (index) against a walk down each path that scans the
// siblings (scan), whose cost per command grows with the width.
func BenchmarkGroupHelpOfAWideGroup(b *testing.B) {
	for _, width := range []int{2_000, 20_000} {
		group := &fisk.CmdModel{Name: "g", Help: "A group", CmdGroupModel: &fisk.CmdGroupModel{}}
		for i := range width {
			group.Commands = append(group.Commands, &fisk.CmdModel{Name: fmt.Sprint("c", i)})
		}
		var siblings []*fisk.CmdModel
		for i := range width {
			siblings = append(siblings, &fisk.CmdModel{Name: fmt.Sprint("s", i), CmdGroupModel: &fisk.CmdGroupModel{Commands: []*fisk.CmdModel{{Name: "x"}}}})
		}
		m := &fisk.ApplicationModel{CmdGroupModel: &fisk.CmdGroupModel{Commands: append(siblings, group)}}
		for _, method := range []struct {
			name string
			each func() func(path []string) []string
		}{
			{"index", func() func([]string) []string { return indexGroupHelp(m).of }},
			{"scan", func() func([]string) []string { return func(p []string) []string { return scannedGroupHelp(m, p) } }},
		} {
			b.Run(fmt.Sprintf("width=%d/%s", width, method.name), func(b *testing.B) {
				for b.Loop() {
					of := method.each()
					for _, c := range group.Commands {
						of([]string{"g", c.Name})
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(width), "ns/command")
			})
		}
	}
}
