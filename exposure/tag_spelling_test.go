package exposure_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// warningsContaining returns the warnings that contain every one of parts.
func warningsContaining(s *exposure.ToolSet, parts ...string) []string {
	var out []string
	for _, w := range s.Warnings() {
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(w, p) }) {
			out = append(out, w)
		}
	}
	return out
}

func TestMiscasedAiDenyRemovesTheCommandAndIsWarnedAbout(t *testing.T) {
	for _, spelling := range []string{"AI:deny", "ai:Deny", "AI:DENY", " ai:deny", "ai:deny\t"} {
		t.Run(fmt.Sprintf("%q", spelling), func(t *testing.T) {
			set := buildTagged(t, exposure.Policy{}, map[string][]string{"echo": {"impact:ro", spelling}})
			if _, ok := set.Lookup("echo"); ok {
				t.Error("echo can be looked up, so it can be called")
			}
			if slices.Contains(names(set), "echo") {
				t.Error("echo is listed")
			}
			hits := warningsContaining(set, `command "echo"`, fmt.Sprintf("%q", spelling), `"ai:deny"`)
			if len(hits) != 1 {
				t.Errorf("spelling warnings = %q, want one naming echo, %q and ai:deny; all: %q", hits, spelling, set.Warnings())
			}
			if hits := warningsContaining(set, "unknown tag"); len(hits) != 1 { // ai:sparkle only
				t.Errorf("unknown-tag warnings = %q, want only ai:sparkle", hits)
			}
		})
	}
}

func TestMiscasedAiDenyCannotBeBroughtBackBySelection(t *testing.T) {
	policies := map[string]exposure.Policy{
		"include by name":          {Include: []*regexp.Regexp{regexp.MustCompile(`^echo$`)}},
		"include by its spelling":  {IncludeTags: []string{"AI:deny"}},
		"include by its other tag": {IncludeTags: []string{"impact:ro"}},
	}
	for label, p := range policies {
		t.Run(label, func(t *testing.T) {
			set := buildTagged(t, p, map[string][]string{"echo": {"impact:ro", "AI:deny"}})
			if _, ok := set.Lookup("echo"); ok {
				t.Error("echo can be looked up")
			}
		})
	}
}

func TestMiscasedAiDenyOnAGroupRemovesItsCommandsAndIsWarnedOnce(t *testing.T) {
	set := buildTagged(t, exposure.Policy{}, map[string][]string{"admin": {"Ai:Deny"}})
	for _, name := range names(set) {
		if strings.HasPrefix(name, "admin_") {
			t.Errorf("%s is exposed under a denied group", name)
		}
	}
	if hits := warningsContaining(set, `group "admin"`, `"Ai:Deny"`); len(hits) != 1 {
		t.Errorf("warnings = %q, want one naming the group admin and Ai:Deny", set.Warnings())
	}
}

func TestMiscasedAiConfirmGatesWithTheCanonicalTrigger(t *testing.T) {
	set := buildTagged(t, exposure.Policy{}, map[string][]string{"emit": {"Ai:Confirm"}, "admin": {"AI:CONFIRM "}})
	for _, name := range []string{"emit", "admin_user_add", "admin_user_list"} {
		if needs, trigger := gate(t, set, name); !needs || trigger != exposure.TagConfirm {
			t.Errorf("%s: gate = (%v, %q), want (true, %q)", name, needs, trigger, exposure.TagConfirm)
		}
	}
	if hits := warningsContaining(set, `command "emit"`, `"Ai:Confirm"`, `"ai:confirm"`); len(hits) != 1 {
		t.Errorf("warnings = %q, want one naming emit and Ai:Confirm", set.Warnings())
	}
	if hits := warningsContaining(set, `group "admin"`, `"AI:CONFIRM "`); len(hits) != 1 {
		t.Errorf("warnings = %q, want one naming the group admin and its spelling", set.Warnings())
	}
}

func TestMiscasedBehaviourTagsAreReadAndShownCanonically(t *testing.T) {
	set := buildTagged(t, exposure.Policy{}, map[string][]string{"emit": {"AI:Read_Only", "AI:read_only"}})
	emit := mustLookup(t, set, "emit")
	if got := exposure.BehaviorOf(emit); !got.ReadOnly {
		t.Errorf("emit behaviour = %+v, want read-only", got)
	}
	if got := emit.(exposure.Sourced).Tags(); !slices.Equal(got, []string{exposure.TagReadOnly}) {
		t.Errorf("tags = %q, want the one canonical tag", got)
	}
	if !strings.HasSuffix(emit.ModelDescription(), "Tags: "+exposure.TagReadOnly) {
		t.Errorf("model description %q does not end with the canonical Tags line", emit.ModelDescription())
	}
	if hits := warningsContaining(set, `command "emit"`, "reserved tag"); len(hits) != 2 {
		t.Errorf("warnings = %q, want one for each spelling", hits)
	}
}

func TestExactlySpeltTagsEarnNoSpellingWarning(t *testing.T) {
	set := build(t, exposure.Policy{})
	if hits := warningsContaining(set, "reserved tag"); len(hits) != 0 {
		t.Errorf("spelling warnings on the fixture = %q", hits)
	}
}

func TestMiscasedUnknownAiTagIsWarnedAsUnknown(t *testing.T) {
	set := buildTagged(t, exposure.Policy{}, map[string][]string{"emit": {"AI:sparkle"}})
	if hits := warningsContaining(set, `command "emit"`, `unknown tag "AI:sparkle"`); len(hits) != 1 {
		t.Errorf("warnings = %q, want AI:sparkle reported as unknown", set.Warnings())
	}
}

func TestOperatorSpellingOfAReservedTagMatchesTheCanonicalTag(t *testing.T) {
	// The application spells ai:destructive two ways; the operator a third.
	set := buildTagged(t, exposure.Policy{ExcludeTags: []string{"ai:Destructive"}}, map[string][]string{"emit": {"AI:DESTRUCTIVE"}})
	for _, name := range []string{"admin_user_delete", "emit", "conflict_readwrite"} {
		if _, ok := set.Lookup(name); ok {
			t.Errorf("%s carries ai:destructive but was not excluded", name)
		}
	}
}

func TestConfirmTagsMatchIgnoringCaseAndOtherTagListsStayExact(t *testing.T) {
	set := build(t, exposure.Policy{
		ConfirmTags:  []string{"OPS:Prod"},
		ReadOnlyTags: []string{"IMPACT:RO"},
	})
	if needs, trigger := gate(t, set, "deploy"); !needs || trigger != "ops:prod" {
		t.Errorf("deploy: gate = (%v, %q), want (true, ops:prod), the tool's own spelling", needs, trigger)
	}
	if hits := warningsContaining(set, "confirm tag"); len(hits) != 0 {
		t.Errorf("warnings %q, but OPS:Prod gates deploy", hits)
	}
	if exposure.BehaviorOf(mustLookup(t, set, "status")).ReadOnly {
		t.Error("IMPACT:RO mapped impact:ro onto read-only: mappings must match exactly")
	}
	included := build(t, exposure.Policy{IncludeTags: []string{"IMPACT:RO"}})
	if included.Len() != 0 {
		t.Errorf("IMPACT:RO selected %v: selection must match exactly", names(included))
	}
}
