package exposure_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

var conservative = exposure.ConservativeBehavior

func TestFixtureBehaviourFollowsTagsWithConservativeResolution(t *testing.T) {
	set := build(t, exposure.Policy{})
	b := func(ro, d, i, ow bool) exposure.Behavior {
		return exposure.Behavior{ReadOnly: ro, Destructive: d, Idempotent: i, OpenWorld: ow}
	}
	cases := []struct {
		tool string
		want exposure.Behavior
	}{
		{"echo", b(true, false, true, true)},             // ai:read_only
		{"batch", b(false, false, true, true)},           // ai:additive ai:idempotent
		{"env", b(true, false, true, false)},             // read-only, idempotent, closed world
		{"emit", conservative},                           // untagged
		{"exit", b(false, true, false, false)},           // ai:closed_world only
		{"touch", b(false, false, false, true)},          // ai:confirm ai:additive
		{"deploy", conservative},                         // ai:open_world is the default already
		{"status", conservative},                         // impact:ro means nothing unmapped
		{"admin_user_add", b(false, false, false, true)}, // ai:additive
		{"admin_user_delete", conservative},              // ai:destructive
		{"admin_user_list", conservative},                // untagged
		{"conflict_readwrite", conservative},             // read-only loses to destructive
		{"conflict_additive-destructive", conservative},  // destructive beats additive
		{"conflict_sparkle", conservative},               // unknown ai: tag
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			if got := exposure.BehaviorOf(mustLookup(t, set, c.tool)); got != c.want {
				t.Errorf("behaviour = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestUntaggedCommandGetsConservativeBehaviour(t *testing.T) {
	set := build(t, exposure.Policy{})
	for _, name := range []string{"emit", "sleep", "spawn", "admin_user_list"} {
		if got := exposure.BehaviorOf(mustLookup(t, set, name)); got != conservative {
			t.Errorf("%s: behaviour = %+v, want conservative %+v", name, got, conservative)
		}
	}
	if conservative.ReadOnly || !conservative.Destructive || conservative.Idempotent || !conservative.OpenWorld {
		t.Errorf("ConservativeBehavior = %+v, want not read-only, destructive, not idempotent, open world", conservative)
	}
}

func TestReadOnlyLosesToAnyWriteTag(t *testing.T) {
	var p exposure.Policy
	for _, write := range []string{exposure.TagAdditive, exposure.TagDestructive} {
		if p.BehaviorForTags([]string{exposure.TagReadOnly, write}).ReadOnly {
			t.Errorf("read-only with %s stayed read-only", write)
		}
	}
	if !p.BehaviorForTags([]string{exposure.TagReadOnly}).ReadOnly {
		t.Error("ai:read_only alone is not read-only")
	}
}

func TestDestructiveBeatsAdditiveAndAdditiveAloneIsNotDestructive(t *testing.T) {
	var p exposure.Policy
	if !p.BehaviorForTags([]string{exposure.TagAdditive, exposure.TagDestructive}).Destructive {
		t.Error("additive with destructive is not destructive")
	}
	if p.BehaviorForTags([]string{exposure.TagAdditive}).Destructive {
		t.Error("additive alone is destructive")
	}
}

func TestClosedWorldNeedsNoOpenWorldTag(t *testing.T) {
	var p exposure.Policy
	if p.BehaviorForTags([]string{exposure.TagClosedWorld}).OpenWorld {
		t.Error("ai:closed_world alone is open world")
	}
	if !p.BehaviorForTags([]string{exposure.TagOpenWorld, exposure.TagClosedWorld}).OpenWorld {
		t.Error("conflicting world tags did not resolve to open world")
	}
}

// TestBehaviourResolutionIgnoresTagOrder tries every permutation of every
// subset of the behaviour tags (and an operator-mapped one).
func TestBehaviourResolutionIgnoresTagOrder(t *testing.T) {
	p := exposure.Policy{ReadOnlyTags: []string{"impact:ro"}, DestructiveTags: []string{"impact:rw"}}
	all := []string{exposure.TagReadOnly, exposure.TagAdditive, exposure.TagDestructive, exposure.TagIdempotent, exposure.TagClosedWorld, exposure.TagOpenWorld, "impact:rw"}
	for mask := range 1 << len(all) {
		var subset []string
		for i, tag := range all {
			if mask&(1<<i) != 0 {
				subset = append(subset, tag)
			}
		}
		want := p.BehaviorForTags(subset)
		permute(subset, func(perm []string) {
			if got := p.BehaviorForTags(perm); got != want {
				t.Fatalf("tags %v: %+v, but %v gave %+v", perm, got, subset, want)
			}
		})
	}
}

// permute calls f with every permutation of s (Heap's algorithm).
func permute(s []string, f func([]string)) {
	s = slices.Clone(s)
	var gen func(k int)
	gen = func(k int) {
		if k <= 1 {
			f(s)
			return
		}
		for i := range k {
			gen(k - 1)
			if k%2 == 0 {
				s[i], s[k-1] = s[k-1], s[i]
			} else {
				s[0], s[k-1] = s[k-1], s[0]
			}
		}
	}
	gen(len(s))
}

func TestOperatorTagMappingsActLikeAiTags(t *testing.T) {
	set := build(t, exposure.Policy{
		ReadOnlyTags:    []string{"impact:ro"},
		DestructiveTags: []string{"impact:rw"},
		IdempotentTags:  []string{"ops:prod"},
	})
	cases := []struct {
		tool string
		want exposure.Behavior
	}{
		// impact:ro alone, now read-only.
		{"status", exposure.Behavior{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true}},
		// ai:additive + impact:rw (mapped destructive): destructive wins.
		{"admin_user_add", conservative},
		// ops:prod mapped idempotent.
		{"deploy", exposure.Behavior{Destructive: true, Idempotent: true, OpenWorld: true}},
	}
	for _, c := range cases {
		if got := exposure.BehaviorOf(mustLookup(t, set, c.tool)); got != c.want {
			t.Errorf("%s: behaviour = %+v, want %+v", c.tool, got, c.want)
		}
	}
	additive := build(t, exposure.Policy{AdditiveTags: []string{"impact:rw"}})
	if got := exposure.BehaviorOf(mustLookup(t, additive, "admin_user_delete")); !got.Destructive {
		t.Errorf("admin_user_delete (ai:destructive, impact:rw mapped additive) not destructive: %+v", got)
	}
}

func gate(t *testing.T, s *exposure.ToolSet, name string) (bool, string) {
	t.Helper()
	c, ok := mustLookup(t, s, name).(exposure.Confirmable)
	if !ok {
		t.Fatalf("%s does not implement Confirmable", name)
	}
	return c.NeedsConfirm(), c.ConfirmTrigger()
}

func TestConfirmTriggerPrefersAiConfirmThenToolTagOrder(t *testing.T) {
	// The operator lists ops:prod before impact:rw; admin user delete carries
	// impact:rw before ops:prod, so its trigger is impact:rw.
	set := build(t, exposure.Policy{ConfirmTags: []string{"ops:prod", "impact:rw", exposure.TagAdditive}})
	cases := []struct {
		tool    string
		needs   bool
		trigger string
	}{
		{"touch", true, exposure.TagConfirm}, // ai:confirm beats ai:additive in the list
		{"deploy", true, "ops:prod"},
		{"admin_user_delete", true, "impact:rw"},
		{"admin_user_add", true, exposure.TagAdditive}, // first own tag in the list
		{"echo", false, ""},
		{"emit", false, ""},
	}
	for _, c := range cases {
		needs, trigger := gate(t, set, c.tool)
		if needs != c.needs || trigger != c.trigger {
			t.Errorf("%s: gate = (%v, %q), want (%v, %q)", c.tool, needs, trigger, c.needs, c.trigger)
		}
	}
}

func TestAiConfirmGatesWithoutOperatorTags(t *testing.T) {
	set := build(t, exposure.Policy{})
	if needs, trigger := gate(t, set, "touch"); !needs || trigger != exposure.TagConfirm {
		t.Errorf("touch: gate = (%v, %q), want ai:confirm", needs, trigger)
	}
	if needs, _ := gate(t, set, "deploy"); needs {
		t.Error("deploy is gated without --confirm-tag ops:prod")
	}
}

func TestConfirmTagMatchingNoToolIsAWarning(t *testing.T) {
	set := build(t, exposure.Policy{ConfirmTags: []string{"ops:prdo", "ops:prod"}})
	var hits []string
	for _, w := range set.Warnings() {
		if strings.Contains(w, "confirm tag") {
			hits = append(hits, w)
		}
	}
	if len(hits) != 1 || !strings.Contains(hits[0], `"ops:prdo"`) {
		t.Errorf("confirm-tag warnings = %q, want one naming ops:prdo", hits)
	}
}

func TestUnknownAiTagIsAWarningAndNothingElse(t *testing.T) {
	set := build(t, exposure.Policy{})
	var hits []string
	for _, w := range set.Warnings() {
		if strings.Contains(w, "unknown tag") {
			hits = append(hits, w)
		}
	}
	if len(hits) != 1 || !strings.Contains(hits[0], `"ai:sparkle"`) || !strings.Contains(hits[0], `"conflict sparkle"`) {
		t.Fatalf("unknown-tag warnings = %q, want one naming ai:sparkle on conflict sparkle", hits)
	}
	mustLookup(t, set, "conflict_sparkle") // still exposed
	for _, w := range set.Warnings() {
		for _, quiet := range []string{exposure.TagNoDefer, "impact:ro", "ops:prod"} {
			if strings.Contains(w, fmt.Sprintf("unknown tag %q", quiet)) {
				t.Errorf("warning mentions accepted tag %s: %q", quiet, w)
			}
		}
	}
}

func TestAiNoDeferIsAcceptedSilently(t *testing.T) {
	set := build(t, exposure.Policy{})
	deploy := mustLookup(t, set, "deploy")
	if got := exposure.BehaviorOf(deploy); got != conservative {
		t.Errorf("deploy behaviour = %+v, want conservative", got)
	}
	if needs, _ := gate(t, set, "deploy"); needs {
		t.Error("ai:no_defer gated deploy")
	}
}
