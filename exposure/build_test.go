package exposure_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// fixtureTools is every tool the fixture yields under the zero policy:
// visible leaves, minus admin purge (ai:deny).
var fixtureTools = []string{
	"admin_user_add", "admin_user_delete", "admin_user_list",
	"batch",
	"conflict_additive-destructive", "conflict_readwrite", "conflict_sparkle",
	"deploy", "echo", "emit", "env", "exit", "sleep", "spawn", "status", "touch",
}

func TestFixtureToolsAreTheVisibleLeavesNamedByPath(t *testing.T) {
	set := build(t, exposure.Policy{})
	if got := names(set); !slices.Equal(got, fixtureTools) {
		t.Errorf("tools = %v\nwant    %v", got, fixtureTools)
	}
	if set.Len() != len(fixtureTools) {
		t.Errorf("Len = %d, want %d", set.Len(), len(fixtureTools))
	}
}

func TestHiddenSubtreesAndGroupsAreNotTools(t *testing.T) {
	set := build(t, exposure.Policy{})
	for _, name := range []string{"internal", "internal_debug", "internal_debug_dump", "secret", "admin", "admin_user", "conflict"} {
		if _, ok := set.Lookup(name); ok {
			t.Errorf("%s is a tool", name)
		}
	}
}

func TestDeniedCommandIsNeitherListedNorCallableWhateverTheSelection(t *testing.T) {
	policies := map[string]exposure.Policy{
		"default":          {},
		"include by name":  {Include: []*regexp.Regexp{regexp.MustCompile(`purge`)}},
		"include by tag":   {IncludeTags: []string{exposure.TagDeny}},
		"include its tags": {IncludeTags: []string{exposure.TagDestructive}},
	}
	for label, p := range policies {
		t.Run(label, func(t *testing.T) {
			set := build(t, p)
			if _, ok := set.Lookup("admin_purge"); ok {
				t.Error("admin_purge can be looked up")
			}
			if slices.Contains(names(set), "admin_purge") {
				t.Error("admin_purge is listed")
			}
		})
	}
}

func TestSelectionByName(t *testing.T) {
	re := regexp.MustCompile
	cases := []struct {
		label string
		p     exposure.Policy
		want  []string
	}{
		{"include", exposure.Policy{Include: []*regexp.Regexp{re(`^admin_`)}}, []string{"admin_user_add", "admin_user_delete", "admin_user_list"}},
		{"include any of several", exposure.Policy{Include: []*regexp.Regexp{re(`^echo$`), re(`^env$`)}}, []string{"echo", "env"}},
		{"exclude wins over include", exposure.Policy{Include: []*regexp.Regexp{re(`^admin_`)}, Exclude: []*regexp.Regexp{re(`_delete$`)}}, []string{"admin_user_add", "admin_user_list"}},
		{"exclude alone", exposure.Policy{Exclude: []*regexp.Regexp{re(`^(conflict|admin)_`), re(`^[a-s]`)}}, []string{"touch"}},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			if got := names(build(t, c.p)); !slices.Equal(got, c.want) {
				t.Errorf("tools = %v, want %v", got, c.want)
			}
		})
	}
}

func TestNameSelectionMatchesTheFinalPrefixedName(t *testing.T) {
	a := fixtureApp(t, "fx")
	p := exposure.Policy{Include: []*regexp.Regexp{regexp.MustCompile(`^fx_e`)}}
	set, err := exposure.Build([]exposure.LoadedApp{a}, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(set), []string{"fx_echo", "fx_emit", "fx_env", "fx_exit"}; !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
}

func TestSelectionByTagWithEmptyTagMatchingUntagged(t *testing.T) {
	untagged := []string{"admin_user_list", "emit", "sleep", "spawn"}
	cases := []struct {
		label string
		p     exposure.Policy
		want  []string
	}{
		{"include a tag", exposure.Policy{IncludeTags: []string{"impact:ro"}}, []string{"echo", "env", "status"}},
		{"include untagged", exposure.Policy{IncludeTags: []string{""}}, untagged},
		{"include a tag or untagged", exposure.Policy{IncludeTags: []string{"", "ops:prod"}}, []string{"admin_user_delete", "admin_user_list", "deploy", "emit", "sleep", "spawn"}},
		{"exclude a tag", exposure.Policy{ExcludeTags: []string{"ops:prod", "impact:rw", "ai:closed_world"}}, slices.DeleteFunc(slices.Clone(fixtureTools), func(n string) bool {
			return n == "deploy" || n == "env" || n == "exit" || strings.HasPrefix(n, "admin_user_a") || n == "admin_user_delete"
		})},
		{"exclude untagged", exposure.Policy{ExcludeTags: []string{""}}, slices.DeleteFunc(slices.Clone(fixtureTools), func(n string) bool { return slices.Contains(untagged, n) })},
		{"exclude wins over include", exposure.Policy{IncludeTags: []string{"impact:ro"}, ExcludeTags: []string{exposure.TagClosedWorld}}, []string{"echo", "status"}},
		{"name and tag both apply", exposure.Policy{IncludeTags: []string{"impact:ro"}, Include: []*regexp.Regexp{regexp.MustCompile(`^e`)}}, []string{"echo", "env"}},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			if got := names(build(t, c.p)); !slices.Equal(got, c.want) {
				t.Errorf("tools = %v\nwant    %v", got, c.want)
			}
		})
	}
}

func TestPrefixPrependsToEveryName(t *testing.T) {
	set, err := exposure.Build([]exposure.LoadedApp{fixtureApp(t, "fx")}, nil, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range fixtureTools {
		want = append(want, "fx_"+n)
	}
	if got := names(set); !slices.Equal(got, want) {
		t.Errorf("tools = %v\nwant    %v", got, want)
	}
	if title := mustLookup(t, set, "fx_admin_user_add").(exposure.Sourced).Title(); title != "admin user add" {
		t.Errorf("title = %q, want the command path without the prefix", title)
	}
}

func TestLongNamesAreShortenedDeterministicallyWithAWarning(t *testing.T) {
	prefix := strings.Repeat("p", 61) // every prefixed name exceeds 64
	buildLong := func() *exposure.ToolSet {
		set, err := exposure.Build([]exposure.LoadedApp{fixtureApp(t, prefix)}, nil, exposure.Policy{})
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	set := buildLong()
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	titles := map[string]bool{}
	for _, tool := range set.Tools() {
		if !valid.MatchString(tool.Name()) {
			t.Errorf("name %q does not fit %s", tool.Name(), valid)
		}
		titles[tool.(exposure.Sourced).Title()] = true
	}
	if set.Len() != len(fixtureTools) || !titles["conflict additive-destructive"] {
		t.Errorf("got %d tools with titles %v; want all %d, titles keeping the full path", set.Len(), titles, len(fixtureTools))
	}
	shortened := 0
	for _, w := range set.Warnings() {
		if strings.Contains(w, "shortened") {
			shortened++
		}
	}
	if shortened != len(fixtureTools) {
		t.Errorf("%d shortening warnings, want %d: %q", shortened, len(fixtureTools), set.Warnings())
	}
	if again := buildLong(); !slices.Equal(names(again), names(set)) {
		t.Errorf("shortened names differ between builds: %v vs %v", names(again), names(set))
	}
}

func TestDescriptionsTitlesAndSources(t *testing.T) {
	set := build(t, exposure.Policy{})
	echo := mustLookup(t, set, "echo")
	if got, want := echo.Description(), "Echo the parsed arguments as JSON"; got != want {
		t.Errorf("echo Description = %q, want %q", got, want)
	}
	wantModel := "Echo the parsed arguments as JSON\n\n" +
		"Prints the argument vector the command received and every parsed value, as one line of JSON.\n" +
		"Tags: ai:read_only, impact:ro"
	if got := echo.ModelDescription(); got != wantModel {
		t.Errorf("echo ModelDescription = %q\nwant %q", got, wantModel)
	}
	status := mustLookup(t, set, "status") // empty help
	if d := status.Description(); d == "" || !strings.Contains(d, "status") {
		t.Errorf("status Description = %q, want one derived from the command path", d)
	}
	if !strings.HasSuffix(status.ModelDescription(), "\nTags: impact:ro") {
		t.Errorf("status ModelDescription = %q, want a trailing Tags line", status.ModelDescription())
	}
	list := mustLookup(t, set, "admin_user_list")
	if d := list.Description(); !strings.Contains(d, "admin user list") {
		t.Errorf("admin_user_list Description = %q, want the command path", d)
	}
	if strings.Contains(list.ModelDescription(), "Tags:") {
		t.Errorf("untagged ModelDescription has a Tags line: %q", list.ModelDescription())
	}
	src := list.(exposure.Sourced)
	if src.Source() != fixtureBin || src.Title() != "admin user list" || len(src.Tags()) != 0 {
		t.Errorf("Sourced = (%q, %q, %v), want (%q, %q, [])", src.Source(), src.Title(), src.Tags(), fixtureBin, "admin user list")
	}
	if got := mustLookup(t, set, "deploy").(exposure.Sourced).Tags(); !slices.Equal(got, []string{"ops:prod", "ai:open_world", "ai:no_defer"}) {
		t.Errorf("deploy Tags = %v, want declaration order", got)
	}
	if k := exposure.KindOf(echo); k != exposure.KindApplication {
		t.Errorf("Kind = %q, want application", k)
	}
	if p := echo.(exposure.Describer).Presentation(); p != exposure.PresentationCommand {
		t.Errorf("Presentation = %q, want command", p)
	}
	if !echo.MCPExposable() || !echo.A2AExposable() {
		t.Error("command tool is not exposable")
	}
}

func TestGlobalFlagsAreResolvedPerAppAndErrorsNameTheApp(t *testing.T) {
	a := fixtureApp(t, "")
	a.Globals = []string{"server"}
	set, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	props, _ := mustLookup(t, set, "echo").InputSchema()["properties"].(map[string]any)
	for _, g := range []string{"server", "context"} { // requested, and required
		if _, ok := props[g]; !ok {
			t.Errorf("echo schema lacks global %q: %v", g, props)
		}
	}
	if _, ok := props["password"]; ok {
		t.Error("echo schema exposes an unrequested global")
	}
	for _, bad := range []string{"nosuchflag", "trace"} { // unknown, hidden
		a := fixtureApp(t, "fx")
		a.Globals = []string{bad}
		_, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
		if err == nil || !strings.Contains(err.Error(), `"fx=`+fixtureBin+`"`) {
			t.Errorf("global %q: error = %v, want one naming the application", bad, err)
		}
	}
}

func TestLeafWithoutSchemaFailsTheLoadNamingAppAndCommand(t *testing.T) {
	a := fixtureApp(t, "")
	cmd := findCommand(t, a.Model, "admin", "user", "list")
	cmd.Schema, cmd.RestrictedSchema = nil, nil
	_, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err == nil {
		t.Fatal("Build succeeded")
	}
	for _, want := range []string{fixtureBin, "admin user list", "v0.9.0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestPolicyMistakesFailTheBuild(t *testing.T) {
	cases := map[string]exposure.Policy{
		"empty confirm tag":   {ConfirmTags: []string{""}},
		"empty read-only tag": {ReadOnlyTags: []string{""}},
		"unknown schema mode": {Schema: "loose"},
		"nil expression":      {Include: []*regexp.Regexp{nil}},
	}
	for label, p := range cases {
		if _, err := exposure.Build([]exposure.LoadedApp{fixtureApp(t, "")}, nil, p); err == nil {
			t.Errorf("%s: Build succeeded", label)
		}
	}
}

func TestParseApp(t *testing.T) {
	cases := []struct {
		spec    string
		want    exposure.App
		wantErr bool
	}{
		{spec: "/usr/bin/nats", want: exposure.App{Path: "/usr/bin/nats"}},
		{spec: "nats=/usr/bin/nats", want: exposure.App{Prefix: "nats", Path: "/usr/bin/nats"}},
		{spec: "my-app_2=./bin/app", want: exposure.App{Prefix: "my-app_2", Path: "./bin/app"}},
		{spec: "/opt/a=b/tool", want: exposure.App{Path: "/opt/a=b/tool"}},
		{spec: "nats", want: exposure.App{Path: "nats"}},
		{spec: "", wantErr: true},
		{spec: "=/usr/bin/nats", wantErr: true},
		{spec: "nats=", wantErr: true},
		{spec: "na ts=/usr/bin/nats", wantErr: true},
		{spec: "n.ts=/usr/bin/nats", wantErr: true},
	}
	for _, c := range cases {
		got, err := exposure.ParseApp(c.spec)
		if c.wantErr {
			if err == nil {
				t.Errorf("ParseApp(%q) = %+v, want an error", c.spec, got)
			}
			continue
		}
		if err != nil || got.Prefix != c.want.Prefix || got.Path != c.want.Path {
			t.Errorf("ParseApp(%q) = %+v, %v; want %+v", c.spec, got, err, c.want)
		}
	}
}

func TestDenyOnAGroupDeniesEveryCommandBeneathIt(t *testing.T) {
	a := fixtureApp(t, "")
	user := findCommand(t, a.Model, "admin", "user")
	user.Tags = []string{exposure.TagDeny}
	set, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{IncludeTags: []string{"", "impact:rw"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names(set) {
		if strings.HasPrefix(name, "admin_user_") {
			t.Errorf("%s is exposed beneath a denied group", name)
		}
	}
	mustLookup(t, set, "emit") // the rest of the selection is untouched
}

func TestNamesWithCharactersOutsideTheAlphabetAreRewrittenWithAWarning(t *testing.T) {
	a := fixtureApp(t, "")
	findCommand(t, a.Model, "status").Name = "sta.tus"
	set, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	var renamed exposure.Tool
	for _, tool := range set.Tools() {
		if tool.(exposure.Sourced).Title() == "sta.tus" {
			renamed = tool
		}
	}
	if renamed == nil || !regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`).MatchString(renamed.Name()) {
		t.Fatalf("no valid tool for sta.tus in %v", names(set))
	}
	if !slices.ContainsFunc(set.Warnings(), func(w string) bool {
		return strings.Contains(w, `"sta.tus"`) && strings.Contains(w, "characters outside")
	}) {
		t.Errorf("warnings = %q, want one about sta.tus", set.Warnings())
	}
}

func TestSchemaThatDoesNotCompileFailsTheBuildNamingTheCommand(t *testing.T) {
	a := fixtureApp(t, "")
	cmd := findCommand(t, a.Model, "batch")
	cmd.RestrictedSchema = map[string]any{"type": "object", "properties": map[string]any{"items": map[string]any{"type": "nope"}}}
	_, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err == nil || !strings.Contains(err.Error(), `command "batch"`) {
		t.Errorf("error = %v, want one naming the batch command", err)
	}
}
