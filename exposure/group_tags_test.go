package exposure_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// buildTagged builds the fixture after setting the tags of the commands at
// the given paths (space-separated): groups, the way natscli tags "bench
// js", and leaves, replacing their own tags.
func buildTagged(t *testing.T, p exposure.Policy, groups map[string][]string) *exposure.ToolSet {
	t.Helper()
	a := fixtureApp(t, "")
	for path, tags := range groups {
		findCommand(t, a.Model, strings.Fields(path)...).Tags = tags
	}
	set, err := exposure.Build([]exposure.LoadedApp{a}, nil, p)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return set
}

func TestConfirmTagOnAGroupGatesEveryCommandBeneathIt(t *testing.T) {
	// The conflict commands carry no impact tag of their own, like the
	// commands of natscli's "bench js".
	set := buildTagged(t, exposure.Policy{ConfirmTags: []string{"impact:rw"}}, map[string][]string{
		"conflict": {"impact:rw"},
		"admin":    {"team:ops"},
	})
	for _, name := range []string{"conflict_readwrite", "conflict_additive-destructive", "conflict_sparkle", "admin_user_add", "admin_user_delete"} {
		if needs, trigger := gate(t, set, name); !needs || trigger != "impact:rw" {
			t.Errorf("%s: gate = (%v, %q), want (true, impact:rw)", name, needs, trigger)
		}
	}
	for _, name := range []string{"admin_user_list", "echo", "status"} {
		if needs, trigger := gate(t, set, name); needs {
			t.Errorf("%s is gated by %q", name, trigger)
		}
	}

	// Nested two levels down, and no warning that the tag gates nothing.
	nested := buildTagged(t, exposure.Policy{ConfirmTags: []string{"team:ops"}}, map[string][]string{"admin": {"team:ops"}})
	for _, name := range []string{"admin_user_add", "admin_user_delete", "admin_user_list"} {
		if needs, trigger := gate(t, nested, name); !needs || trigger != "team:ops" {
			t.Errorf("%s: gate = (%v, %q), want (true, team:ops)", name, needs, trigger)
		}
	}
	for _, w := range nested.Warnings() {
		if strings.Contains(w, "confirm tag") {
			t.Errorf("warning %q, but team:ops gates the admin commands", w)
		}
	}
}

func TestConfirmTriggerIsTheFirstOwnTagThenTheFirstInheritedOutermostFirst(t *testing.T) {
	// The operator lists ops:prod before impact:rw and team:ops; the order
	// that decides is the command's: its own tags first, in their order,
	// then its groups', outermost first.
	p := exposure.Policy{ConfirmTags: []string{"ops:prod", "impact:rw", "team:ops"}}
	set := buildTagged(t, p, map[string][]string{
		"admin":      {"team:ops"},
		"admin user": {"ops:prod"},
	})
	cases := []struct{ tool, want string }{
		// Own ai:destructive, impact:rw, ops:prod: impact:rw is the first
		// own tag in the list, although both groups' tags are listed too.
		{"admin_user_delete", "impact:rw"},
		// Own ai:additive, impact:rw.
		{"admin_user_add", "impact:rw"},
		// No own tags: the outermost group's tag, although the operator
		// listed the inner group's first.
		{"admin_user_list", "team:ops"},
	}
	for _, c := range cases {
		if needs, trigger := gate(t, set, c.tool); !needs || trigger != c.want {
			t.Errorf("%s: gate = (%v, %q), want (true, %q)", c.tool, needs, trigger, c.want)
		}
	}
}

func TestAiConfirmOnAGroupGatesAndIsPreferredAsTrigger(t *testing.T) {
	set := buildTagged(t, exposure.Policy{ConfirmTags: []string{"impact:rw"}}, map[string][]string{"admin": {"team:ops", exposure.TagConfirm}})
	for _, name := range []string{"admin_user_add", "admin_user_delete", "admin_user_list"} {
		if needs, trigger := gate(t, set, name); !needs || trigger != exposure.TagConfirm {
			t.Errorf("%s: gate = (%v, %q), want (true, ai:confirm)", name, needs, trigger)
		}
	}
	if needs, _ := gate(t, set, "echo"); needs {
		t.Error("echo, outside the group, is gated")
	}
	for _, w := range set.Warnings() {
		if strings.Contains(w, "group") {
			t.Errorf("warning about a group tag that now takes effect: %q", w)
		}
	}
}

func TestEffectiveTagsAreGroupsOutermostFirstThenOwnEachOnce(t *testing.T) {
	set := buildTagged(t, exposure.Policy{}, map[string][]string{
		"admin":      {"team:ops", "impact:rw"},
		"admin user": {"impact:rw", "scope:user"},
	})
	cases := map[string][]string{
		"admin_user_add":  {"team:ops", "impact:rw", "scope:user", "ai:additive"},
		"admin_user_list": {"team:ops", "impact:rw", "scope:user"},
		"echo":            {"ai:read_only", "impact:ro"},
	}
	for name, want := range cases {
		tool := mustLookup(t, set, name)
		if got := tool.(exposure.Sourced).Tags(); !slices.Equal(got, want) {
			t.Errorf("%s: Tags = %v, want %v", name, got, want)
		}
		if line := "\nTags: " + strings.Join(want, ", "); !strings.HasSuffix(tool.ModelDescription(), line) {
			t.Errorf("%s: ModelDescription = %q, want it to end with %q", name, tool.ModelDescription(), line)
		}
	}
}

func TestUnknownAiTagOnAGroupIsWarnedOnceNamingTheGroup(t *testing.T) {
	set := buildTagged(t, exposure.Policy{}, map[string][]string{"admin": {"ai:confrim"}})
	var hits []string
	for _, w := range set.Warnings() {
		if strings.Contains(w, `"ai:confrim"`) {
			hits = append(hits, w)
		}
	}
	if len(hits) != 1 || !strings.Contains(hits[0], `group "admin"`) {
		t.Errorf("warnings = %q, want one naming group admin", hits)
	}
	if needs, _ := gate(t, set, "admin_user_list"); needs {
		t.Error("a misspelt ai:confirm gated a command")
	}
}
