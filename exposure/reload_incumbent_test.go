package exposure_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// appWith is the fixture at path, reduced to the named top-level commands.
func appWith(t *testing.T, path string, keep ...string) exposure.LoadedApp {
	t.Helper()
	return exposure.LoadedApp{App: exposure.App{Path: path}, Model: withOnly(t, fixtureModel(t), keep...)}
}

func sourceOf(t *testing.T, set *exposure.ToolSet, name string) string {
	t.Helper()
	return mustLookup(t, set, name).(exposure.Sourced).Source()
}

func mustBuild(t *testing.T, apps []exposure.LoadedApp, custom []exposure.Tool) *exposure.ToolSet {
	t.Helper()
	set, err := exposure.Build(apps, custom, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func mustRebuild(t *testing.T, apps []exposure.LoadedApp, custom []exposure.Tool, previous *exposure.ToolSet) *exposure.ToolSet {
	t.Helper()
	set, err := exposure.Rebuild(apps, custom, exposure.Policy{}, previous)
	if err != nil {
		t.Fatalf("Rebuild: %v", err)
	}
	return set
}

// The reported defect: b served echo; a, first in the configured order,
// gained an echo of its own. The name must keep running b's command.
func TestReloadKeepsAServedNameWithItsToolAndSkipsTheNewcomer(t *testing.T) {
	previous := mustBuild(t, []exposure.LoadedApp{appWith(t, "/opt/a/fixture", "env"), appWith(t, "/opt/b/fixture", "echo")}, nil)

	apps := []exposure.LoadedApp{appWith(t, "/opt/a/fixture", "env", "echo", "status"), appWith(t, "/opt/b/fixture", "echo")}
	set := mustRebuild(t, apps, nil, previous)

	if src := sourceOf(t, set, "echo"); src != "/opt/b/fixture" {
		t.Errorf("echo now comes from %q, want the application that was serving it", src)
	}
	want := []exposure.Skip{{
		Name:   "echo",
		Source: `application "/opt/a/fixture" command "echo"`,
		Reason: `name already taken by application "/opt/b/fixture" command "echo", which was serving it before this reload`,
	}}
	if got := set.Skipped(); !slices.Equal(got, want) {
		t.Errorf("skipped = %+v\nwant %+v", got, want)
	}
	d := exposure.Diff(previous, set)
	if !slices.Equal(d.Added, []string{"status"}) || len(d.Changed) != 0 || len(d.Removed) != 0 {
		t.Errorf("diff = %+v, want only status added", d)
	}

	// Without the set in force, the fixed order decides, as at startup.
	set, err := exposure.Rebuild(apps, nil, exposure.Policy{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if src := sourceOf(t, set, "echo"); src != "/opt/a/fixture" {
		t.Errorf("Rebuild without a previous set: echo from %q, want the first application", src)
	}
}

func TestReloadHolderGoneFromItsApplicationFreesItsName(t *testing.T) {
	previous := mustBuild(t, []exposure.LoadedApp{appWith(t, "/opt/a/fixture", "env"), appWith(t, "/opt/b/fixture", "echo")}, nil)
	cases := []struct {
		label string
		b     func(t *testing.T) exposure.LoadedApp
	}{
		{"removed", func(t *testing.T) exposure.LoadedApp { return appWith(t, "/opt/b/fixture", "status") }},
		{"hidden", func(t *testing.T) exposure.LoadedApp {
			b := appWith(t, "/opt/b/fixture", "echo", "status")
			findCommand(t, b.Model, "echo").Hidden = true
			return b
		}},
		{"denied", func(t *testing.T) exposure.LoadedApp {
			b := appWith(t, "/opt/b/fixture", "echo", "status")
			findCommand(t, b.Model, "echo").Tags = []string{exposure.TagDeny}
			return b
		}},
		{"filtered out", func(t *testing.T) exposure.LoadedApp {
			b := appWith(t, "/opt/b/fixture", "echo", "status")
			b.Exclude = []*regexp.Regexp{regexp.MustCompile("^echo$")}
			return b
		}},
	}
	for _, tc := range cases {
		t.Run(tc.label, func(t *testing.T) {
			set := mustRebuild(t, []exposure.LoadedApp{appWith(t, "/opt/a/fixture", "env", "echo"), tc.b(t)}, nil, previous)
			if src := sourceOf(t, set, "echo"); src != "/opt/a/fixture" {
				t.Errorf("echo comes from %q, want the application that now has it", src)
			}
			if s := set.Skipped(); len(s) != 0 {
				t.Errorf("skipped = %+v, want none", s)
			}
		})
	}
}

func TestReloadHolderIsTheSameCommandPathOfTheSameBinary(t *testing.T) {
	// b served admin_user_list from the command "admin user list"; after
	// the reload that command is gone from b, and b's top-level command
	// "admin_user_list" has the same final name. It is another command, so
	// the name is free, and a, first in the configured order, takes it.
	previous := mustBuild(t, []exposure.LoadedApp{appWith(t, "/opt/a/fixture", "env"), appWith(t, "/opt/b/fixture", "admin")}, nil)
	if src := sourceOf(t, previous, "admin_user_list"); src != "/opt/b/fixture" {
		t.Fatalf("setup: admin_user_list from %q", src)
	}
	b := appWith(t, "/opt/b/fixture", "status")
	findCommand(t, b.Model, "status").Name = "admin_user_list"
	set := mustRebuild(t, []exposure.LoadedApp{appWith(t, "/opt/a/fixture", "env", "admin"), b}, nil, previous)
	if src := sourceOf(t, set, "admin_user_list"); src != "/opt/a/fixture" {
		t.Errorf("admin_user_list comes from %q: a command that merely has the old name held it", src)
	}
	if s := set.Skipped(); len(s) != 1 || s[0].Source != `application "/opt/b/fixture" command "admin_user_list"` || strings.Contains(s[0].Reason, "was serving") {
		t.Errorf("skipped = %+v, want b's new command skipped by the fixed order", s)
	}
}

func TestReloadHolderInsideOneApplicationKeepsItsName(t *testing.T) {
	// The top-level command "admin_user_list" served that name while
	// "admin user list" did not exist; now both do. "admin user list"
	// sorts first, but the served command keeps the name.
	before := fixtureApp(t, "")
	intraAppCollision(t, before.Model)
	user := findCommand(t, before.Model, "admin", "user")
	user.Commands = slices.DeleteFunc(user.Commands, func(c *fisk.CmdModel) bool { return c.Name == "list" })
	previous := mustBuild(t, []exposure.LoadedApp{before}, nil)

	after := fixtureApp(t, "")
	intraAppCollision(t, after.Model)
	set := mustRebuild(t, []exposure.LoadedApp{after}, nil, previous)
	if title := mustLookup(t, set, "admin_user_list").(exposure.Sourced).Title(); title != "admin_user_list" {
		t.Errorf("admin_user_list is now command %q, want the command that was serving it", title)
	}
	if s := set.Skipped(); len(s) != 1 || s[0].Source != `application "`+fixtureBin+`" command "admin user list"` || !strings.Contains(s[0].Reason, "was serving it") {
		t.Errorf("skipped = %+v", s)
	}
}

func TestReloadKeepsAServedCustomToolAgainstAnApplicationNewcomer(t *testing.T) {
	custom := newCustom(t, exposure.CustomSpec{Name: "echo"})
	previous := mustBuild(t, []exposure.LoadedApp{appWith(t, fixtureBin, "env")}, []exposure.Tool{custom})

	set := mustRebuild(t, []exposure.LoadedApp{appWith(t, fixtureBin, "env", "echo")}, []exposure.Tool{custom}, previous)
	if k := exposure.KindOf(mustLookup(t, set, "echo")); k != exposure.KindCustom {
		t.Errorf("echo is now of kind %q, want the custom tool that was serving it", k)
	}
	if s := set.Skipped(); len(s) != 1 || s[0].Source != `application "`+fixtureBin+`" command "echo"` || s[0].Reason != `name already taken by custom tool "echo", which was serving it before this reload` {
		t.Errorf("skipped = %+v", s)
	}

	// An application command served under the name keeps it against a new
	// custom tool too.
	previous = mustBuild(t, []exposure.LoadedApp{appWith(t, fixtureBin, "env", "echo")}, nil)
	set = mustRebuild(t, []exposure.LoadedApp{appWith(t, fixtureBin, "env", "echo")}, []exposure.Tool{custom}, previous)
	if k := exposure.KindOf(mustLookup(t, set, "echo")); k != exposure.KindApplication {
		t.Errorf("echo is now of kind %q, want the command that was serving it", k)
	}
}

func TestReloadHolderMayChangeEverythingButItsIdentity(t *testing.T) {
	previous := mustBuild(t, []exposure.LoadedApp{appWith(t, "/opt/a/fixture", "env"), appWith(t, "/opt/b/fixture", "echo")}, nil)
	b := appWith(t, "/opt/b/fixture", "echo")
	findCommand(t, b.Model, "echo").Help = "Echo, upgraded"
	set := mustRebuild(t, []exposure.LoadedApp{appWith(t, "/opt/a/fixture", "env", "echo"), b}, nil, previous)
	if src := sourceOf(t, set, "echo"); src != "/opt/b/fixture" {
		t.Errorf("echo comes from %q, want b, whose echo changed its help only", src)
	}
	if d := exposure.Diff(previous, set); !slices.Equal(d.Changed, []string{"echo"}) {
		t.Errorf("diff = %+v, want echo changed", d)
	}
}

// A nil previous set holds no names: the reload is a startup build in the
// fixed order, except that each later claimant of a name is skipped and
// recorded instead of failing the build.
func TestRebuildWithoutAPreviousSetIsBuildForReload(t *testing.T) {
	apps := twoApps(t, "", "")
	got := describe(mustRebuild(t, apps, nil, nil))
	empty := describe(mustRebuild(t, twoApps(t, "", ""), nil, mustBuild(t, nil, nil)))
	if !slices.Equal(got.names, empty.names) || got.prints != empty.prints || !slices.Equal(got.skipped, empty.skipped) {
		t.Errorf("Rebuild(nil) differs from Rebuild of an empty set:\n got %v %+v\nwant %v %+v", got.names, got.skipped, empty.names, empty.skipped)
	}
	first := describe(mustBuild(t, apps[:1], nil))
	if !slices.Equal(got.names, first.names) || got.prints != first.prints {
		t.Errorf("Rebuild(nil) serves %v, want the first application's tools as Build serves them, %v", got.names, first.names)
	}
	if len(got.skipped) != len(fixtureTools) {
		t.Fatalf("skipped %+v, want each of the second application's %d tools", got.skipped, len(fixtureTools))
	}
	for _, skip := range got.skipped {
		if want := `name already taken by application "/opt/a/fixture" command `; !strings.HasPrefix(skip.Reason, want) || !strings.HasPrefix(skip.Source, `application "/opt/b/fixture"`) {
			t.Errorf("skip %+v, want the second application's tool skipped for the first's", skip)
		}
	}
}

// wrapper writes an executable that runs the fixture: another binary path
// with the same commands.
func wrapper(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "other-fixture")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexec '"+fixtureBin+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadWithAPreviousSetKeepsItsHolders(t *testing.T) {
	other := wrapper(t)
	onlyEcho := []*regexp.Regexp{regexp.MustCompile("^echo$")}
	previous, err := exposure.Load(background, []exposure.App{{Path: other, Include: onlyEcho}}, nil, exposure.Policy{}, exposure.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	apps := []exposure.App{{Path: fixtureBin}, {Path: other, Include: onlyEcho}}

	set, err := exposure.Load(background, apps, nil, exposure.Policy{}, exposure.LoadOptions{Previous: previous})
	if err != nil {
		t.Fatalf("Load with Previous (which implies Reload): %v", err)
	}
	if src := sourceOf(t, set, "echo"); src != other {
		t.Errorf("echo comes from %q, want %q, which was serving it", src, other)
	}
	if set.Len() != len(fixtureTools) || len(set.Skipped()) != 1 {
		t.Errorf("%d tools, skipped %+v", set.Len(), set.Skipped())
	}

	set, err = exposure.Load(background, apps, nil, exposure.Policy{}, exposure.LoadOptions{Reload: true})
	if err != nil {
		t.Fatal(err)
	}
	if src := sourceOf(t, set, "echo"); src != fixtureBin {
		t.Errorf("without Previous echo comes from %q, want the first application", src)
	}
}
