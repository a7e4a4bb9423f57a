package introspect

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/choria-io/fisk"
)

func leafNames(t *testing.T, app *fisk.ApplicationModel) []string {
	t.Helper()
	leaves, err := Walk(app)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range leaves {
		names = append(names, l.Name())
	}
	return names
}

func TestWalkReturnsEveryVisibleLeafOfTheFixtureInTreeOrder(t *testing.T) {
	want := []string{"echo", "batch", "env", "emit", "sleep", "spawn", "exit", "touch", "deploy", "status",
		"admin_user_add", "admin_user_delete", "admin_user_list", "admin_purge",
		"conflict_readwrite", "conflict_additive-destructive", "conflict_sparkle"}
	if got := leafNames(t, fixtureModel); !slices.Equal(got, want) {
		t.Fatalf("leaves = %v\nwant     %v", got, want)
	}
}

func TestWalkSkipsHiddenCommandsAndTheirSubtrees(t *testing.T) {
	for _, name := range leafNames(t, fixtureModel) {
		if name == "secret" || strings.HasPrefix(name, "internal") {
			t.Errorf("hidden command %q was walked", name)
		}
	}
}

func TestWalkNeverReturnsGroupsAsLeaves(t *testing.T) {
	for _, name := range leafNames(t, fixtureModel) {
		if name == "admin" || name == "admin_user" || name == "conflict" {
			t.Errorf("group %q returned as a leaf", name)
		}
	}
}

func TestWalkTreatsAGroupWhoseChildrenAreAllHiddenAsAGroup(t *testing.T) {
	app := &fisk.ApplicationModel{Name: "a", CmdGroupModel: &fisk.CmdGroupModel{Commands: []*fisk.CmdModel{
		{Name: "g", CmdGroupModel: &fisk.CmdGroupModel{Commands: []*fisk.CmdModel{{Name: "h", Hidden: true}}}},
	}}}
	if got := leafNames(t, app); len(got) != 0 {
		t.Fatalf("leaves = %v, want none", got)
	}
}

func TestLeafNameJoinsPathWithUnderscoreAndFullCommandWithSpaces(t *testing.T) {
	leaves, err := Walk(fixtureModel)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaves {
		if l.Name() == "admin_user_add" {
			if l.FullCommand() != "admin user add" || !slices.Equal(l.Path, []string{"admin", "user", "add"}) || l.Command.Name != "add" {
				t.Fatalf("leaf = %+v, full command %q", l, l.FullCommand())
			}
			return
		}
	}
	t.Fatal("admin_user_add not found")
}

func TestWalkGivesEveryLeafItsOwnPathSlice(t *testing.T) {
	leaves := mustWalk(t)
	before := map[int]string{}
	for i, l := range leaves {
		before[i] = l.FullCommand()
	}
	for _, l := range leaves {
		if len(l.Path) > 1 { // a nested leaf shares its parent's prefix
			for i := range l.Path {
				l.Path[i] = "mutated"
			}
			break
		}
	}
	mutated := 0
	for i, l := range leaves {
		if l.FullCommand() != before[i] {
			mutated++
		}
	}
	if mutated != 1 {
		t.Fatalf("mutating one leaf's path changed %d leaves", mutated)
	}
}

func TestWalkToleratesNilGroupPointersAndNilCommands(t *testing.T) {
	// A decoded leaf without flags, args or subcommands has all three
	// embedded group pointers nil; a nil app or command must not panic.
	doc := `{"name":"a","commands":[{"name":"bare","schema":{"type":"object"},"restricted_schema":{"type":"object"}}]}`
	app, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	leaf := app.Commands[0]
	if leaf.FlagGroupModel != nil || leaf.ArgGroupModel != nil || leaf.CmdGroupModel != nil {
		t.Fatalf("expected nil group pointers, got %+v", leaf)
	}
	if got := leafNames(t, app); !slices.Equal(got, []string{"bare"}) {
		t.Fatalf("leaves = %v", got)
	}
	app.Commands = append(app.Commands, nil)
	if got := leafNames(t, app); !slices.Equal(got, []string{"bare"}) {
		t.Fatalf("leaves with a nil command = %v", got)
	}
	for _, app := range []*fisk.ApplicationModel{nil, {Name: "empty"}} {
		if leaves, err := Walk(app); err != nil || len(leaves) != 0 {
			t.Fatalf("Walk(%v) = %v, %v", app, leaves, err)
		}
	}
}

func TestWalkFailsNamingEveryLeafWithoutASchema(t *testing.T) {
	doc := `{"name":"old","commands":[
		{"name":"ok","schema":{"type":"object"},"restricted_schema":{"type":"object"}},
		{"name":"auth","commands":[{"name":"add"},{"name":"rm","schema":{"type":"object"}}]}]}`
	app, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Walk(app)
	var missing *MissingSchemaError
	if !errors.Is(err, ErrFiskTooOld) || !errors.As(err, &missing) {
		t.Fatalf("err = %v, want a MissingSchemaError matching ErrFiskTooOld", err)
	}
	if !slices.Equal(missing.Commands, []string{"auth add", "auth rm"}) {
		t.Fatalf("missing = %v", missing.Commands)
	}
	for _, want := range []string{`"auth add"`, "needs fisk >= v0.9.0", "1 more"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestWalkIgnoresAHiddenLeafWithoutASchema(t *testing.T) {
	doc := `{"name":"a","commands":[{"name":"old","hidden":true}]}`
	app, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Walk(app); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeKeepsSchemaNumbersExact(t *testing.T) {
	for _, l := range mustWalk(t) {
		if l.Name() != "echo" {
			continue
		}
		size := l.Command.Schema["properties"].(map[string]any)["size"].(map[string]any)
		if n, ok := size["maximum"].(json.Number); !ok || n.String() != "65535" {
			t.Fatalf("maximum = %#v, want json.Number 65535", size["maximum"])
		}
		return
	}
	t.Fatal("echo not found")
}

func TestDecodeRejectsDocumentsThatAreNotAnApplicationModel(t *testing.T) {
	for name, doc := range map[string]string{
		"empty":         "",
		"whitespace":    " \n",
		"text":          "Usage: tool [flags]\n",
		"array":         "[1,2]",
		"null":          "null",
		"no name":       `{"commands":[]}`,
		"trailing data": `{"name":"a"} {"name":"b"}`,
		"wrong types":   `{"name":"a","commands":"x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Decode([]byte(doc)); !errors.Is(err, ErrNotJSON) {
				t.Fatalf("Decode(%q) err = %v, want ErrNotJSON", doc, err)
			}
		})
	}
}

func mustWalk(t *testing.T) []Leaf {
	t.Helper()
	leaves, err := Walk(fixtureModel)
	if err != nil {
		t.Fatal(err)
	}
	return leaves
}

func TestWalkGivesEachLeafTheAliasesOfEveryLevelOfItsPath(t *testing.T) {
	leaves, err := Walk(fixtureModel)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][][]string{}
	for _, l := range leaves {
		got[l.Name()] = l.Aliases
	}
	if want := [][]string{nil, {"member"}, {"rm", "expel"}}; !slices.EqualFunc(got["admin_user_delete"], want, slices.Equal) {
		t.Errorf("admin user delete aliases = %q, want %q", got["admin_user_delete"], want)
	}
	if want := [][]string{nil, {"member"}, nil}; !slices.EqualFunc(got["admin_user_add"], want, slices.Equal) {
		t.Errorf("admin user add aliases = %q, want %q (the group's, none of its own)", got["admin_user_add"], want)
	}
	if got["echo"] != nil || got["admin_purge"] != nil {
		t.Errorf("commands without aliases at any level got %q and %q, want nil", got["echo"], got["admin_purge"])
	}
}
