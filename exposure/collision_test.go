package exposure_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func twoApps(t *testing.T, prefixA, prefixB string) []exposure.LoadedApp {
	a := fixtureApp(t, prefixA)
	b := fixtureApp(t, prefixB)
	a.Path, b.Path = "/opt/a/fixture", "/opt/b/fixture"
	return []exposure.LoadedApp{a, b}
}

func TestTwoAppsWithoutPrefixFailAtStartupNamingBothSources(t *testing.T) {
	_, err := exposure.Build(twoApps(t, "", ""), nil, exposure.Policy{})
	if err == nil {
		t.Fatal("Build succeeded")
	}
	msg := err.Error()
	for _, want := range []string{
		`tool name "echo"`,
		`application "/opt/a/fixture" command "echo"`,
		`application "/opt/b/fixture" command "echo"`,
		`application "/opt/a/fixture" command "admin user add"`,
		"PREFIX=PATH",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not mention %q:\n%s", want, msg)
		}
	}
	if n := strings.Count(msg, "is claimed by both"); n != len(fixtureTools) {
		t.Errorf("%d collisions reported, want %d", n, len(fixtureTools))
	}
}

func TestTwoAppsWithPrefixesDoNotCollide(t *testing.T) {
	set, err := exposure.Build(twoApps(t, "a", "b"), nil, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 2*len(fixtureTools) {
		t.Errorf("%d tools, want %d", set.Len(), 2*len(fixtureTools))
	}
	for _, name := range []string{"a_echo", "b_echo"} {
		if src := mustLookup(t, set, name).(exposure.Sourced).Source(); src != "/opt/"+name[:1]+"/fixture" {
			t.Errorf("%s source = %q", name, src)
		}
	}
}

func TestOnePrefixedAppAndOneBareAppDoNotCollide(t *testing.T) {
	set, err := exposure.Build(twoApps(t, "", "b"), nil, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	mustLookup(t, set, "echo")
	mustLookup(t, set, "b_echo")
}

func TestReloadSkipsTheLaterCollidingToolAndRecordsIt(t *testing.T) {
	set, err := exposure.Rebuild(twoApps(t, "", ""), nil, exposure.Policy{}, nil)
	if err != nil {
		t.Fatalf("Rebuild failed: %v", err)
	}
	if got := names(set); !slices.Equal(got, fixtureTools) {
		t.Errorf("tools = %v, want %v", got, fixtureTools)
	}
	for _, tool := range set.Tools() {
		if src := tool.(exposure.Sourced).Source(); src != "/opt/a/fixture" {
			t.Errorf("%s comes from %q, want the first app", tool.Name(), src)
		}
	}
	skipped := set.Skipped()
	if len(skipped) != len(fixtureTools) {
		t.Fatalf("%d skipped, want %d: %+v", len(skipped), len(fixtureTools), skipped)
	}
	echo := skipped[slices.IndexFunc(skipped, func(s exposure.Skip) bool { return s.Name == "echo" })]
	if echo.Source != `application "/opt/b/fixture" command "echo"` || !strings.Contains(echo.Reason, `application "/opt/a/fixture" command "echo"`) {
		t.Errorf("skip = %+v, want source b naming a as the holder", echo)
	}
}

func TestFilteredOutCommandsNeitherCollideNorAppearAsSkipped(t *testing.T) {
	apps := twoApps(t, "", "")
	p := exposure.Policy{ExcludeTags: []string{"impact:ro"}} // still collides on the others
	apps[1].Model = withOnly(t, apps[1].Model, "echo", "env", "status")
	set, err := exposure.Build(apps, nil, p)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if len(set.Skipped()) != 0 {
		t.Errorf("skipped = %+v, want none", set.Skipped())
	}
}

// withOnly keeps only the named top-level commands of m.
func withOnly(t *testing.T, m *fisk.ApplicationModel, keep ...string) *fisk.ApplicationModel {
	t.Helper()
	m.Commands = slices.DeleteFunc(m.Commands, func(c *fisk.CmdModel) bool { return !slices.Contains(keep, c.Name) })
	return m
}

func TestCollisionsAreCountedOnFinalNames(t *testing.T) {
	// App b's "echo" renamed "readwrite" under prefix "conflict" becomes
	// conflict_readwrite, the final name of app a's "conflict readwrite".
	apps := twoApps(t, "", "conflict")
	apps[1].Model = withOnly(t, apps[1].Model, "echo")
	findCommand(t, apps[1].Model, "echo").Name = "readwrite"
	_, err := exposure.Build(apps, nil, exposure.Policy{})
	if err == nil || !strings.Contains(err.Error(), `tool name "conflict_readwrite" is claimed by both application "/opt/a/fixture" command "conflict readwrite" and application "conflict=/opt/b/fixture" command "readwrite"`) {
		t.Errorf("error = %v, want the conflict_readwrite collision naming both", err)
	}
}

func TestCustomToolComesAfterAppsInTheFixedOrder(t *testing.T) {
	custom := newCustom(t, exposure.CustomSpec{Name: "echo"})
	_, err := exposure.Build([]exposure.LoadedApp{fixtureApp(t, "")}, []exposure.Tool{custom}, exposure.Policy{})
	if err == nil || !strings.Contains(err.Error(), `command "echo" and custom tool "echo"`) {
		t.Errorf("startup error = %v, want one naming the app command first, the custom tool second", err)
	}
	set, err := exposure.Rebuild([]exposure.LoadedApp{fixtureApp(t, "")}, []exposure.Tool{custom}, exposure.Policy{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if exposure.KindOf(mustLookup(t, set, "echo")) != exposure.KindApplication {
		t.Error("the custom tool took the name from the application")
	}
	if s := set.Skipped(); len(s) != 1 || s[0].Source != `custom tool "echo"` {
		t.Errorf("skipped = %+v, want the custom tool", s)
	}
}

// shuffled returns a fresh fixture model whose command lists, at every level,
// are in a random order.
func shuffled(t *testing.T, r *rand.Rand) *fisk.ApplicationModel {
	m := fixtureModel(t)
	var shuffle func(cmds []*fisk.CmdModel)
	shuffle = func(cmds []*fisk.CmdModel) {
		r.Shuffle(len(cmds), func(i, j int) { cmds[i], cmds[j] = cmds[j], cmds[i] })
		for _, c := range cmds {
			if c.CmdGroupModel != nil {
				shuffle(c.Commands)
			}
		}
	}
	shuffle(m.Commands)
	return m
}

// intraAppCollision makes the fixture collide with itself: a top-level
// command renamed "admin_user_list" claims the name of "admin user list".
func intraAppCollision(t *testing.T, m *fisk.ApplicationModel) {
	findCommand(t, m, "status").Name = "admin_user_list"
}

// tagGroups puts tags on the fixture's groups, nested and overlapping with
// their commands' own, and reserved tags spelt other than exactly on groups
// and commands, so inheritance and the spelling warnings are part of what
// must not depend on the order of discovery.
func tagGroups(t *testing.T, m *fisk.ApplicationModel) {
	findCommand(t, m, "admin").Tags = []string{"impact:rw", "ai:confrim"}
	findCommand(t, m, "admin", "user").Tags = []string{"ops:prod", "impact:rw", "scope:user", "AI:Additive"}
	findCommand(t, m, "conflict").Tags = []string{exposure.TagReadOnly, "impact:ro", "Ai:Confirm"}
	findCommand(t, m, "exit").Tags = []string{"AI:deny"}
	findCommand(t, m, "emit").Tags = []string{"ai:Read_Only", "AI:sparkle"}
}

type outcome struct {
	names    []string
	prints   string
	warnings []string
	skipped  []exposure.Skip
	err      string
}

// observe builds apps as at startup (Build) or, with reload, as a live
// reload without a set in force (Rebuild with a nil previous).
func observe(t *testing.T, apps []exposure.LoadedApp, p exposure.Policy, reload bool) outcome {
	var set *exposure.ToolSet
	var err error
	if reload {
		set, err = exposure.Rebuild(apps, nil, p, nil)
	} else {
		set, err = exposure.Build(apps, nil, p)
	}
	if err != nil {
		return outcome{err: err.Error()}
	}
	return describe(set)
}

func TestOutcomeNeverDependsOnDiscoveryOrder(t *testing.T) {
	p := exposure.Policy{
		ConfirmTags:     []string{"ops:prod", "impact:rw", "ops:typo"},
		ReadOnlyTags:    []string{"impact:ro"},
		DestructiveTags: []string{"impact:rw"},
	}
	scenarios := []struct {
		label  string
		reload bool
		apps   func(m1, m2 *fisk.ApplicationModel) []exposure.LoadedApp
	}{
		{"one app", false, func(m1, _ *fisk.ApplicationModel) []exposure.LoadedApp {
			return []exposure.LoadedApp{{App: exposure.App{Path: "/opt/a/fixture"}, Model: m1}}
		}},
		{"two apps colliding at startup", false, func(m1, m2 *fisk.ApplicationModel) []exposure.LoadedApp {
			return []exposure.LoadedApp{{App: exposure.App{Path: "/opt/a/fixture"}, Model: m1}, {App: exposure.App{Path: "/opt/b/fixture"}, Model: m2}}
		}},
		{"two apps colliding on reload", true, func(m1, m2 *fisk.ApplicationModel) []exposure.LoadedApp {
			return []exposure.LoadedApp{{App: exposure.App{Path: "/opt/a/fixture"}, Model: m1}, {App: exposure.App{Path: "/opt/b/fixture"}, Model: m2}}
		}},
		{"two prefixed apps", false, func(m1, m2 *fisk.ApplicationModel) []exposure.LoadedApp {
			return []exposure.LoadedApp{{App: exposure.App{Prefix: "a", Path: "/opt/a/fixture"}, Model: m1}, {App: exposure.App{Prefix: "b", Path: "/opt/b/fixture"}, Model: m2}}
		}},
	}
	for _, intra := range []bool{false, true} {
		for _, sc := range scenarios {
			label := sc.label
			if intra {
				label += " with a collision inside the app"
			}
			t.Run(label, func(t *testing.T) {
				models := func(r *rand.Rand) (*fisk.ApplicationModel, *fisk.ApplicationModel) {
					var m1, m2 *fisk.ApplicationModel
					if r == nil {
						m1, m2 = fixtureModel(t), fixtureModel(t)
					} else {
						m1, m2 = shuffled(t, r), shuffled(t, r)
					}
					if intra {
						intraAppCollision(t, m1)
						intraAppCollision(t, m2)
					}
					tagGroups(t, m1)
					tagGroups(t, m2)
					return m1, m2
				}
				want := observe(t, sc.apps(models(nil)), p, sc.reload)
				if intra && !sc.reload && want.err == "" {
					t.Fatal("a collision inside the app did not fail the startup build")
				}
				r := rand.New(rand.NewPCG(1, 2))
				for i := range 50 {
					got := observe(t, sc.apps(models(r)), p, sc.reload)
					if got.err != want.err {
						t.Fatalf("shuffle %d: error differs:\n got %s\nwant %s", i, got.err, want.err)
					}
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

func TestCollisionInsideOneAppKeepsTheLowerCommandPath(t *testing.T) {
	a := fixtureApp(t, "")
	intraAppCollision(t, a.Model)
	_, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err == nil || !strings.Contains(err.Error(), `command "admin user list" and application "`+fixtureBin+`" command "admin_user_list"`) {
		t.Errorf("startup error = %v", err)
	}
	a = fixtureApp(t, "")
	intraAppCollision(t, a.Model)
	set, err := exposure.Rebuild([]exposure.LoadedApp{a}, nil, exposure.Policy{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if title := mustLookup(t, set, "admin_user_list").(exposure.Sourced).Title(); title != "admin user list" {
		t.Errorf("admin_user_list is %q, want the command admin user list", title)
	}
	if s := set.Skipped(); len(s) != 1 || !strings.Contains(s[0].Source, `command "admin_user_list"`) {
		t.Errorf("skipped = %+v", s)
	}
}
