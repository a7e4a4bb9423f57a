package exposure_test

import (
	"slices"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// writesSafely is the behaviour of a command that writes, not destructively.
var writesSafely = exposure.Behavior{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}

// readOnly is the behaviour of a command whose own tags say read-only.
var readOnly = exposure.Behavior{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true}

func TestNatscliShapeGroupReadOnlyLeafWriteIsNotReadOnly(t *testing.T) {
	// natscli v0.5.0: the group "server request" is impact:ro, its command
	// "server request kick" impact:rw, and an operator maps only impact:ro.
	p := exposure.Policy{ReadOnlyTags: []string{"impact:ro"}, ConfirmTags: []string{"impact:rw"}}
	set := buildTagged(t, p, map[string][]string{
		"admin user":      {"impact:ro"},
		"admin user add":  {"impact:rw"},
		"admin user list": {"impact:ro"},
	})
	if got := exposure.BehaviorOf(mustLookup(t, set, "admin_user_add")); got.ReadOnly {
		t.Errorf("admin_user_add (impact:rw) under a group tagged impact:ro is read-only: %+v", got)
	}
	if needs, trigger := gate(t, set, "admin_user_add"); !needs || trigger != "impact:rw" {
		t.Errorf("admin_user_add: gate = (%v, %q), want (true, impact:rw)", needs, trigger)
	}
	// The control: its own impact:ro still counts.
	if got := exposure.BehaviorOf(mustLookup(t, set, "admin_user_list")); got != readOnly {
		t.Errorf("admin_user_list (impact:ro of its own): %+v, want %+v", got, readOnly)
	}
}

func TestGroupBehaviourTagsOnlyMakeCommandsMoreCautious(t *testing.T) {
	cases := []struct {
		label  string
		p      exposure.Policy
		tags   map[string][]string // groups, and leaves whose own tags are replaced
		tool   string
		want   exposure.Behavior
		reason string
	}{
		{"group ai:read_only, untagged leaf", exposure.Policy{},
			map[string][]string{"admin user": {exposure.TagReadOnly}},
			"admin_user_list", conservative, "a group's read-only claim is ignored"},
		{"group ai:read_only, leaf ai:additive", exposure.Policy{},
			map[string][]string{"admin user": {exposure.TagReadOnly}},
			"admin_user_add", writesSafely, "the leaf's own write stands"},
		{"group ai:read_only, leaf ai:destructive", exposure.Policy{},
			map[string][]string{"admin user": {exposure.TagReadOnly}},
			"admin_user_delete", conservative, "the leaf's own write stands"},
		{"group mapped read-only, untagged leaf", exposure.Policy{ReadOnlyTags: []string{"impact:ro"}},
			map[string][]string{"conflict": {"impact:ro"}, "conflict sparkle": nil},
			"conflict_sparkle", conservative, "a mapping onto read-only on a group is ignored"},
		{"group mapped read-only, leaf with an unmapped write tag", exposure.Policy{ReadOnlyTags: []string{"impact:ro"}},
			map[string][]string{"conflict": {"impact:ro"}, "conflict sparkle": {"impact:rw"}},
			"conflict_sparkle", conservative, "impact:rw means nothing, and the group's claim is ignored"},
		{"group ai:destructive, leaf ai:read_only", exposure.Policy{},
			map[string][]string{"conflict": {exposure.TagDestructive}, "conflict sparkle": {exposure.TagReadOnly}},
			"conflict_sparkle", conservative, "a group's destructive claim counts"},
		{"group mapped destructive, leaf ai:read_only", exposure.Policy{DestructiveTags: []string{"impact:rw"}},
			map[string][]string{"conflict": {"impact:rw"}, "conflict sparkle": {exposure.TagReadOnly}},
			"conflict_sparkle", conservative, "a mapping onto destructive on a group counts"},
		{"group ai:additive, leaf ai:read_only", exposure.Policy{},
			map[string][]string{"conflict": {exposure.TagAdditive}, "conflict sparkle": {exposure.TagReadOnly}},
			"conflict_sparkle", writesSafely, "a write on the group costs the leaf its read-only, as on one level"},
		{"group mapped additive, untagged leaf", exposure.Policy{AdditiveTags: []string{"impact:add"}},
			map[string][]string{"admin user": {"impact:add"}},
			"admin_user_list", conservative, "a group's additive does not lift the destructive default"},
		{"group ai:additive, leaf ai:destructive", exposure.Policy{},
			map[string][]string{"admin user": {exposure.TagAdditive}},
			"admin_user_delete", conservative, "destructive beats additive across levels"},
		{"group ai:idempotent, untagged leaf", exposure.Policy{},
			map[string][]string{"admin": {exposure.TagIdempotent}},
			"admin_user_list", conservative, "a group's idempotent claim is ignored"},
		{"group mapped idempotent, leaf ai:additive", exposure.Policy{IdempotentTags: []string{"ops:retry"}},
			map[string][]string{"admin": {"ops:retry"}},
			"admin_user_add", writesSafely, "a mapping onto idempotent on a group is ignored"},
		{"group ai:closed_world, untagged leaf", exposure.Policy{},
			map[string][]string{"admin": {exposure.TagClosedWorld}},
			"admin_user_list", conservative, "a group's closed-world claim is ignored"},
		{"group ai:open_world, leaf ai:closed_world", exposure.Policy{},
			map[string][]string{"admin": {exposure.TagOpenWorld}, "admin user list": {exposure.TagClosedWorld}},
			"admin_user_list", conservative, "a group's open-world claim counts"},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			set := buildTagged(t, c.p, c.tags)
			if got := exposure.BehaviorOf(mustLookup(t, set, c.tool)); got != c.want {
				t.Errorf("%s: behaviour = %+v, want %+v (%s)", c.tool, got, c.want, c.reason)
			}
		})
	}
}

// TestInheritedTagsAreNeverMorePermissiveThanOwnTagsAlone tries every pair
// of subsets of the behaviour tags and mapped tags, one on the command and
// one on its groups.
func TestInheritedTagsAreNeverMorePermissiveThanOwnTagsAlone(t *testing.T) {
	// A mapping reads like the tag it maps onto, so one mapping in each
	// direction stands for the others and keeps the product small.
	p := exposure.Policy{ReadOnlyTags: []string{"m:ro"}, DestructiveTags: []string{"m:rw"}}
	all := []string{exposure.TagReadOnly, exposure.TagAdditive, exposure.TagDestructive, exposure.TagIdempotent,
		exposure.TagOpenWorld, exposure.TagClosedWorld, "m:ro", "m:rw"}
	subset := func(mask int) []string {
		var out []string
		for i, tag := range all {
			if mask&(1<<i) != 0 {
				out = append(out, tag)
			}
		}
		return out
	}
	for ownMask := range 1 << len(all) {
		own := subset(ownMask)
		alone := p.BehaviorForTags(own)
		if got := exposure.CommandBehavior(p, own, nil); got != alone {
			t.Fatalf("own %v with no groups: %+v, want %+v as BehaviorForTags", own, got, alone)
		}
		for inheritedMask := range 1 << len(all) {
			inherited := subset(inheritedMask)
			got := exposure.CommandBehavior(p, own, inherited)
			if (got.ReadOnly && !alone.ReadOnly) || (!got.Destructive && alone.Destructive) ||
				(got.Idempotent && !alone.Idempotent) || (!got.OpenWorld && alone.OpenWorld) {
				t.Fatalf("own %v, inherited %v: %+v is more permissive than own alone %+v", own, inherited, got, alone)
			}
			writes := slices.ContainsFunc(inherited, func(tag string) bool {
				return slices.Contains([]string{exposure.TagAdditive, exposure.TagDestructive, "m:rw"}, tag)
			})
			if writes && got.ReadOnly {
				t.Fatalf("own %v, inherited %v: read-only despite a write tag on a group", own, inherited)
			}
			destroys := slices.Contains(inherited, exposure.TagDestructive) || slices.Contains(inherited, "m:rw")
			if destroys && !got.Destructive {
				t.Fatalf("own %v, inherited %v: not destructive despite a destructive tag on a group", own, inherited)
			}
			if slices.Contains(inherited, exposure.TagOpenWorld) && !got.OpenWorld {
				t.Fatalf("own %v, inherited %v: closed world despite ai:open_world on a group", own, inherited)
			}
		}
	}
}

func TestTagSelectionIncludesByOwnTagsAndExcludesByInheritedToo(t *testing.T) {
	adminTools := []string{"admin_user_add", "admin_user_delete", "admin_user_list"}
	withoutAdmin := slices.DeleteFunc(slices.Clone(fixtureTools), func(n string) bool { return slices.Contains(adminTools, n) })
	cases := []struct {
		label string
		p     exposure.Policy
		tags  map[string][]string
		want  []string
	}{
		{"inclusion ignores a group's tag",
			exposure.Policy{IncludeTags: []string{"team:ops"}},
			map[string][]string{"admin": {"team:ops"}, "admin user list": {"team:ops"}},
			[]string{"admin_user_list"}},
		{"inclusion of impact:ro ignores a group tagged impact:ro",
			exposure.Policy{IncludeTags: []string{"impact:ro"}},
			map[string][]string{"conflict": {"impact:ro"}},
			[]string{"echo", "env", "status"}},
		{"untagged means no tags of its own",
			exposure.Policy{IncludeTags: []string{""}},
			map[string][]string{"admin": {"team:ops"}},
			[]string{"admin_user_list", "emit", "sleep", "spawn"}},
		{"exclusion matches a group's tag",
			exposure.Policy{ExcludeTags: []string{"team:ops"}},
			map[string][]string{"admin": {"team:ops"}},
			withoutAdmin},
		{"exclusion of untagged reaches a command under a tagged group",
			exposure.Policy{ExcludeTags: []string{""}},
			map[string][]string{"admin": {"team:ops"}},
			slices.DeleteFunc(slices.Clone(fixtureTools), func(n string) bool {
				return slices.Contains([]string{"admin_user_list", "emit", "sleep", "spawn"}, n)
			})},
		{"exclusion wins over an inclusion by the command's own tag",
			exposure.Policy{IncludeTags: []string{"impact:rw"}, ExcludeTags: []string{"team:ops"}},
			map[string][]string{"admin": {"team:ops"}},
			nil},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			if got := names(buildTagged(t, c.p, c.tags)); !slices.Equal(got, c.want) {
				t.Errorf("tools = %v\nwant    %v", got, c.want)
			}
		})
	}
}
