package exposure_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// buildTagged builds the fixture after tag sets the tags of the groups at
// the given paths (space-separated), the way natscli tags "bench js".
func buildTagged(t *testing.T, p exposure.Policy, groups map[string][]string) *exposure.ToolSet {
	t.Helper()
	a := fixtureApp(t, "")
	for path, tags := range groups {
		findCommand(t, a.Model, strings.Fields(path)...).Tags = tags
	}
	set, err := exposure.Build([]exposure.LoadedApp{a}, nil, p, false)
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

func TestConfirmTriggerIsTheFirstEffectiveTagInTheOperatorList(t *testing.T) {
	// admin user delete's own tags are ai:destructive, impact:rw, ops:prod;
	// with ops:prod on its group its effective order puts ops:prod first,
	// so ops:prod triggers although the operator listed impact:rw first.
	set := buildTagged(t, exposure.Policy{ConfirmTags: []string{"impact:rw", "ops:prod"}}, map[string][]string{"admin user": {"ops:prod"}})
	if needs, trigger := gate(t, set, "admin_user_delete"); !needs || trigger != "ops:prod" {
		t.Errorf("admin_user_delete: gate = (%v, %q), want (true, ops:prod)", needs, trigger)
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

func TestBehaviourTagOnAGroupAppliesAndConflictsStayConservative(t *testing.T) {
	set := buildTagged(t, exposure.Policy{}, map[string][]string{"admin user": {exposure.TagReadOnly}})
	cases := []struct {
		tool string
		want exposure.Behavior
	}{
		// Untagged itself: read-only from its group.
		{"admin_user_list", exposure.Behavior{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true}},
		// The group's ai:read_only against the command's ai:destructive.
		{"admin_user_delete", conservative},
		// Against ai:additive: writes, not destructively.
		{"admin_user_add", exposure.Behavior{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}},
	}
	for _, c := range cases {
		if got := exposure.BehaviorOf(mustLookup(t, set, c.tool)); got != c.want {
			t.Errorf("%s: behaviour = %+v, want %+v", c.tool, got, c.want)
		}
	}

	// An operator mapping reads group tags too.
	mapped := buildTagged(t, exposure.Policy{ReadOnlyTags: []string{"impact:ro"}}, map[string][]string{"conflict": {"impact:ro"}})
	if got := exposure.BehaviorOf(mustLookup(t, mapped, "conflict_sparkle")); !got.ReadOnly {
		t.Errorf("conflict_sparkle under a group tagged impact:ro (mapped read-only): %+v", got)
	}
	if got := exposure.BehaviorOf(mustLookup(t, mapped, "conflict_readwrite")); got.ReadOnly {
		t.Errorf("conflict_readwrite (ai:destructive) under a read-only group is read-only: %+v", got)
	}
}

func TestTagSelectionMatchesGroupTags(t *testing.T) {
	groups := map[string][]string{"admin": {"team:ops"}}
	adminTools := []string{"admin_user_add", "admin_user_delete", "admin_user_list"}
	cases := []struct {
		label string
		p     exposure.Policy
		want  []string
	}{
		{"include the group's tag", exposure.Policy{IncludeTags: []string{"team:ops"}}, adminTools},
		{"exclude the group's tag", exposure.Policy{ExcludeTags: []string{"team:ops"}}, slices.DeleteFunc(slices.Clone(fixtureTools), func(n string) bool { return slices.Contains(adminTools, n) })},
		// admin user list has no tags of its own but inherits team:ops.
		{"untagged excludes inherited", exposure.Policy{IncludeTags: []string{""}}, []string{"emit", "sleep", "spawn"}},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			if got := names(buildTagged(t, c.p, groups)); !slices.Equal(got, c.want) {
				t.Errorf("tools = %v\nwant    %v", got, c.want)
			}
		})
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
		if line := "\n\nTags: " + strings.Join(want, ", "); !strings.HasSuffix(tool.ModelDescription(), line) {
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
