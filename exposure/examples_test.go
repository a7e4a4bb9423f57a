package exposure_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func aliasesOf(t *testing.T, s *exposure.ToolSet, name string) [][]string {
	t.Helper()
	a, ok := mustLookup(t, s, name).(exposure.Aliased)
	if !ok {
		t.Fatalf("command tool %q does not implement Aliased", name)
	}
	return a.Aliases()
}

func TestCommandToolsAnswerToTheAliasesOfEveryWordOfTheirPath(t *testing.T) {
	set := build(t, exposure.Policy{})
	got := aliasesOf(t, set, "admin_user_delete")
	if want := [][]string{nil, {"member"}, {"rm", "expel"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("admin_user_delete aliases = %q, want %q", got, want)
	}
	got[1][0] = "changed"
	if again := aliasesOf(t, set, "admin_user_delete"); again[1][0] != "member" {
		t.Errorf("Aliases shares its slices with the tool: %q", again)
	}
	if got := aliasesOf(t, set, "admin_user_add"); !slices.EqualFunc(got, [][]string{nil, {"member"}, nil}, slices.Equal) {
		t.Errorf("admin_user_add aliases = %q, want the group's only", got)
	}
	if got := aliasesOf(t, set, "echo"); got != nil {
		t.Errorf("echo aliases = %q, want nil", got)
	}
}

func examplesOf(t *testing.T, s *exposure.ToolSet, name string) []exposure.Example {
	t.Helper()
	e, ok := mustLookup(t, s, name).(exposure.Exemplified)
	if !ok {
		t.Fatalf("command tool %q does not implement Exemplified", name)
	}
	return e.Examples()
}

func TestExamplesAreTheCheatSheetLinesThatRunTheToolWithTheNotesAboveThem(t *testing.T) {
	m := fixtureModel(t)
	m.Cheats = map[string]string{"admin": fmt.Sprintf(`# Managing users
# one at a time
%[1]s admin user add bob --role=writer
EDITOR=vi %[1]s admin member expel bob
All changes are final.

# the whole list
%[1]s admin user list
%[1]s admin nosuch thing
%[1]s secret
`, m.Name)}
	findCommand(t, m, "echo").Cheat = "# say it back\necho hello"
	set, err := exposure.Build([]exposure.LoadedApp{{App: exposure.App{Path: fixtureBin}, Model: m}}, nil, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	note := "Managing users\none at a time"
	for name, want := range map[string][]exposure.Example{
		"admin_user_add":    {{Note: note, Command: m.Name + " admin user add bob --role=writer"}},
		"admin_user_delete": {{Note: note, Command: "EDITOR=vi " + m.Name + " admin member expel bob"}},
		"admin_user_list":   {{Note: "the whole list", Command: m.Name + " admin user list"}},
		"echo":              {{Note: "say it back", Command: "echo hello"}},
		"batch":             nil,
	} {
		if got := examplesOf(t, set, name); !slices.Equal(got, want) {
			t.Errorf("%s examples = %q, want %q", name, got, want)
		}
	}
}

// Aliases and examples are not shown to clients: a reload that changes only
// them changes no tool's descriptor.
func TestAliasesAndExamplesLeaveTheDescriptorAlone(t *testing.T) {
	before := build(t, exposure.Policy{})
	m := fixtureModel(t)
	findCommand(t, m, "admin", "user", "delete").Aliases = []string{"remove"}
	findCommand(t, m, "echo").Cheat = "# say it back\necho hello"
	m.Cheats = map[string]string{"echo": "echo hello"}
	after, err := exposure.Build([]exposure.LoadedApp{{App: exposure.App{Path: fixtureBin}, Model: m}}, nil, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if d := exposure.Diff(before, after); !d.Empty() {
		t.Errorf("Diff = %+v, want nothing changed", d)
	}
	if got := aliasesOf(t, after, "admin_user_delete"); !slices.Equal(got[2], []string{"remove"}) {
		t.Errorf("the rebuilt set has aliases %q, want remove for delete", got)
	}
}
