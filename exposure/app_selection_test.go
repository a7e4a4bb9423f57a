package exposure_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func TestPerAppExcludeSettlesACollisionBetweenTwoUnprefixedApps(t *testing.T) {
	apps := twoApps(t, "", "")
	apps[1].Model = withOnly(t, apps[1].Model, "echo")
	if _, err := exposure.Build(apps, nil, exposure.Policy{}); err == nil {
		t.Fatal("the unsettled apps did not collide")
	}

	apps = twoApps(t, "", "")
	apps[1].Model = withOnly(t, apps[1].Model, "echo")
	apps[0].Exclude = []*regexp.Regexp{regexp.MustCompile(`^echo$`)}
	set, err := exposure.Build(apps, nil, exposure.Policy{})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if got := names(set); !slices.Equal(got, fixtureTools) {
		t.Errorf("tools = %v\nwant    %v", got, fixtureTools)
	}
	for _, tool := range set.Tools() {
		want := "/opt/a/fixture"
		if tool.Name() == "echo" {
			want = "/opt/b/fixture"
		}
		if src := tool.(exposure.Sourced).Source(); src != want {
			t.Errorf("%s comes from %s, want %s", tool.Name(), src, want)
		}
	}
	if len(set.Skipped()) != 0 {
		t.Errorf("skipped = %+v, want none", set.Skipped())
	}
}

func TestPerAppIncludeLimitsThatAppOnly(t *testing.T) {
	apps := twoApps(t, "a", "b")
	apps[0].Include = []*regexp.Regexp{regexp.MustCompile(`^a_e`)}
	set, err := exposure.Build(apps, nil, exposure.Policy{})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	want := []string{"a_echo", "a_emit", "a_env", "a_exit"}
	for _, n := range fixtureTools {
		want = append(want, "b_"+n)
	}
	if got := names(set); !slices.Equal(got, want) {
		t.Errorf("tools = %v\nwant    %v", got, want)
	}
}

func TestPerAppTagSelectionAppliesInAdditionToThePolicy(t *testing.T) {
	apps := twoApps(t, "a", "b")
	apps[0].IncludeTags = []string{"impact:ro"}
	apps[1].ExcludeTags = []string{""}
	apps[1].Include = []*regexp.Regexp{regexp.MustCompile(`^b_(e|s)`)}
	apps[1].Exclude = []*regexp.Regexp{regexp.MustCompile(`^b_echo$`)}
	p := exposure.Policy{ExcludeTags: []string{exposure.TagClosedWorld}}
	set, err := exposure.Build(apps, nil, p)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	// a: impact:ro (echo, env, status) minus env (ai:closed_world).
	// b: names starting e or s, minus untagged (emit, sleep, spawn),
	// minus echo, minus env and exit (ai:closed_world).
	want := []string{"a_echo", "a_status", "b_status"}
	if got := names(set); !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
}

func TestPerAppTagSelectionIncludesByOwnTagsAndExcludesByInheritedToo(t *testing.T) {
	a := fixtureApp(t, "")
	findCommand(t, a.Model, "admin").Tags = []string{"team:ops"}
	findCommand(t, a.Model, "admin", "user", "list").Tags = []string{"team:ops"}
	a.IncludeTags = []string{"team:ops"}
	set, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	// Only the command tagged team:ops itself: its siblings merely inherit it.
	if got, want := names(set), []string{"admin_user_list"}; !slices.Equal(got, want) {
		t.Errorf("included tools = %v, want %v", got, want)
	}

	a = fixtureApp(t, "")
	findCommand(t, a.Model, "admin").Tags = []string{"team:ops"}
	a.ExcludeTags = []string{"team:ops"}
	set, err = exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	for _, name := range names(set) {
		if strings.HasPrefix(name, "admin_") {
			t.Errorf("%s is exposed although its group's tag is excluded", name)
		}
	}
	if got, want := len(names(set)), len(fixtureTools)-3; got != want {
		t.Errorf("%d tools after excluding the admin group, want %d", got, want)
	}
}

func TestNilPerAppExpressionFailsTheBuildNamingTheApp(t *testing.T) {
	a := fixtureApp(t, "fx")
	a.Exclude = []*regexp.Regexp{nil}
	_, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err == nil || !strings.Contains(err.Error(), `"fx=`+fixtureBin+`"`) {
		t.Errorf("error = %v, want one naming the application", err)
	}
}
