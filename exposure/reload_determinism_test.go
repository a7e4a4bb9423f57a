package exposure_test

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// describe is what observe records, for a set already built.
func describe(set *exposure.ToolSet) outcome {
	o := outcome{names: names(set), warnings: set.Warnings(), skipped: set.Skipped()}
	var b strings.Builder
	for _, tool := range set.Tools() {
		d, _ := json.Marshal(struct {
			Name, Desc, Model string
			Schema            map[string]any
			B                 exposure.Behavior
			Source, Title     string
			Trigger           string
		}{tool.Name(), tool.Description(), tool.ModelDescription(), tool.InputSchema(), exposure.BehaviorOf(tool),
			tool.(exposure.Sourced).Source(), tool.(exposure.Sourced).Title(), tool.(exposure.Confirmable).ConfirmTrigger()})
		b.Write(d)
	}
	o.prints = b.String()
	return o
}

// duplicateSibling makes the fixture declare a second top-level "echo",
// which differs from the first in its help only.
func duplicateSibling(t *testing.T, m *fisk.ApplicationModel) {
	twin := *findCommand(t, m, "echo")
	twin.Help = "The other echo"
	m.Commands = append(m.Commands, &twin)
}

// TestReloadOutcomeNeverDependsOnDiscoveryOrder extends
// TestOutcomeNeverDependsOnDiscoveryOrder to reloads that know the set in
// force: the previous set is built from one order of discovery, the reload
// from another, and every pairing must give the same set, warnings and
// skips.
func TestReloadOutcomeNeverDependsOnDiscoveryOrder(t *testing.T) {
	p := exposure.Policy{
		ConfirmTags:     []string{"ops:prod", "impact:rw", "ops:typo"},
		ReadOnlyTags:    []string{"impact:ro"},
		DestructiveTags: []string{"impact:rw"},
	}
	type models func(r *rand.Rand) (*fisk.ApplicationModel, *fisk.ApplicationModel)
	scenarios := []struct {
		label string
		// previous builds the set in force; apps the reload's input.
		previous func(t *testing.T, m models, r *rand.Rand) *exposure.ToolSet
		apps     func(m1, m2 *fisk.ApplicationModel) []exposure.LoadedApp
	}{
		{"the second app was serving every colliding name", func(t *testing.T, m models, r *rand.Rand) *exposure.ToolSet {
			_, m2 := m(r)
			return mustRebuildWith(t, []exposure.LoadedApp{{App: exposure.App{Path: "/opt/b/fixture"}, Model: m2}}, p, nil)
		}, bothApps},
		{"each app was serving part of the names", func(t *testing.T, m models, r *rand.Rand) *exposure.ToolSet {
			m1, m2 := m(r)
			m1.Commands = slices.DeleteFunc(m1.Commands, func(c *fisk.CmdModel) bool { return c.Name < "f" })
			m2.Commands = slices.DeleteFunc(m2.Commands, func(c *fisk.CmdModel) bool { return c.Name >= "f" })
			return mustRebuildWith(t, bothApps(m1, m2), p, nil)
		}, bothApps},
		{"a reload of a reload", func(t *testing.T, m models, r *rand.Rand) *exposure.ToolSet {
			m1, m2 := m(r)
			m1.Commands = slices.DeleteFunc(m1.Commands, func(c *fisk.CmdModel) bool { return c.Name == "admin" })
			first := mustRebuildWith(t, []exposure.LoadedApp{{App: exposure.App{Path: "/opt/b/fixture"}, Model: m2}}, p, nil)
			_, m2 = m(r)
			return mustRebuildWith(t, bothApps(m1, m2), p, first)
		}, bothApps},
	}
	for _, variant := range []struct {
		label  string
		modify func(t *testing.T, m *fisk.ApplicationModel)
	}{
		{"", func(*testing.T, *fisk.ApplicationModel) {}},
		{" with a collision inside the app", intraAppCollision},
		{" with two sibling commands of one name", duplicateSibling},
	} {
		for _, sc := range scenarios {
			t.Run(sc.label+variant.label, func(t *testing.T) {
				m := func(r *rand.Rand) (*fisk.ApplicationModel, *fisk.ApplicationModel) {
					var m1, m2 *fisk.ApplicationModel
					if r == nil {
						m1, m2 = fixtureModel(t), fixtureModel(t)
					} else {
						m1, m2 = shuffled(t, r), shuffled(t, r)
					}
					for _, x := range []*fisk.ApplicationModel{m1, m2} {
						variant.modify(t, x)
						tagGroups(t, x)
					}
					return m1, m2
				}
				want := describe(mustRebuildWith(t, sc.apps(m(nil)), p, sc.previous(t, m, nil)))
				if len(want.skipped) == 0 {
					t.Fatal("nothing was skipped; the scenario needs collisions")
				}
				r := rand.New(rand.NewPCG(3, 4))
				for i := range 30 {
					previous := sc.previous(t, m, r)
					got := describe(mustRebuildWith(t, sc.apps(m(r)), p, previous))
					if !slices.Equal(got.names, want.names) || got.prints != want.prints {
						t.Fatalf("shuffle %d: set differs:\n got %v\nwant %v", i, got.names, want.names)
					}
					if !slices.Equal(got.warnings, want.warnings) {
						t.Fatalf("shuffle %d: warnings differ:\n got %q\nwant %q", i, got.warnings, want.warnings)
					}
					if !slices.Equal(got.skipped, want.skipped) {
						t.Fatalf("shuffle %d: skipped differ:\n got %+v\nwant %+v", i, got.skipped, want.skipped)
					}
				}
			})
		}
	}
}

func bothApps(m1, m2 *fisk.ApplicationModel) []exposure.LoadedApp {
	return []exposure.LoadedApp{{App: exposure.App{Path: "/opt/a/fixture"}, Model: m1}, {App: exposure.App{Path: "/opt/b/fixture"}, Model: m2}}
}

func mustRebuildWith(t *testing.T, apps []exposure.LoadedApp, p exposure.Policy, previous *exposure.ToolSet) *exposure.ToolSet {
	t.Helper()
	set, err := exposure.Rebuild(apps, nil, p, previous)
	if err != nil {
		t.Fatalf("Rebuild: %v", err)
	}
	return set
}
