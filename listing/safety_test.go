package listing

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// synthetic builds a set of one application whose commands carry tags.
func synthetic(t *testing.T, p exposure.Policy, commands map[string][]string) *exposure.ToolSet {
	t.Helper()
	var cmds []string
	for name, tags := range commands {
		quoted := make([]string, len(tags))
		for i, tag := range tags {
			quoted[i] = fmt.Sprintf("%q", tag)
		}
		cmds = append(cmds, fmt.Sprintf(`{"name":%q,"help":"Does %s","tags":[%s],"schema":{"type":"object"},"restricted_schema":{"type":"object"}}`, name, name, strings.Join(quoted, ",")))
	}
	m, err := introspect.Decode([]byte(`{"name":"app","help":"An app","commands":[` + strings.Join(cmds, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := exposure.Build([]exposure.LoadedApp{{App: exposure.App{Path: "/opt/app"}, Model: m}}, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func counts(cs []TagCount) string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s=%d", c.Tag, c.Tools))
	}
	return strings.Join(out, " ")
}

func TestAssessFindsUnguardedToolsAndSuggestsTheMappingsThatChangeThem(t *testing.T) {
	commands := map[string][]string{
		"ls":      {"Impact:RO", "scope:user"},
		"info":    {"impact:ro", "ai:read_only"},
		"rm":      {"impact:rw", "scope:system"},
		"add":     {"impact:rw", "ai:additive"},
		"stop":    {"ai:confirm", "impact:rw"},
		"restart": {},
		"odd":     {"impact:r o", "note:weird"},
		"kick":    {"impact:ro", "impact:rw"},
	}
	cases := []struct {
		name                string
		policy              exposure.Policy
		unguarded           []string
		readOnly, confirm   string
		mark, gate          int
		left, other, flags  string
		hintHas, hintHasNot string
	}{
		{
			name:      "nothing mapped",
			unguarded: []string{"kick", "ls", "odd", "restart", "rm"},
			readOnly:  "Impact:RO=1 impact:ro=2", confirm: "impact:rw=4", mark: 2, gate: 3,
			left: "odd restart", other: "note:weird=1 scope:system=1 scope:user=1",
			flags:   "--read-only-tag Impact:RO --read-only-tag impact:ro --confirm-tag impact:rw",
			hintHas: "the app tags its commands Impact:RO (1), impact:ro (2) and impact:rw (4): --read-only-tag Impact:RO --read-only-tag impact:ro --confirm-tag impact:rw would mark 2 read-only and gate 3, leaving 2 unguarded",
		},
		{
			name:      "the gate already set is not suggested again",
			policy:    exposure.Policy{ConfirmTags: []string{"impact:rw"}},
			unguarded: []string{"ls", "odd", "restart"},
			readOnly:  "Impact:RO=1 impact:ro=2", mark: 2,
			left: "odd restart", other: "note:weird=1 scope:system=1 scope:user=1",
			flags: "--read-only-tag Impact:RO --read-only-tag impact:ro", hintHasNot: "--confirm-tag",
		},
		{
			// kick carries both impact tags, so mapping impact:ro cannot
			// make it read-only; the mapping is not suggested again.
			name:      "a mapping already set is not suggested even where it changes nothing",
			policy:    exposure.Policy{ConfirmTags: []string{"IMPACT:RW"}, ReadOnlyTags: []string{"Impact:RO", "impact:ro"}},
			unguarded: []string{"odd", "restart"},
			left:      "odd restart", other: "note:weird=1 scope:system=1 scope:user=1",
			hintHas: "tag commands ai:confirm",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Assess(synthetic(t, tc.policy, commands), tc.policy)
			if !slices.Equal(s.Unguarded, tc.unguarded) {
				t.Errorf("unguarded = %v, want %v", s.Unguarded, tc.unguarded)
			}
			if got := counts(s.ReadOnly); got != tc.readOnly {
				t.Errorf("read-only = %q, want %q", got, tc.readOnly)
			}
			if got := counts(s.Confirm); got != tc.confirm {
				t.Errorf("confirm = %q, want %q", got, tc.confirm)
			}
			if got := counts(s.Other); got != tc.other {
				t.Errorf("other = %q, want %q", got, tc.other)
			}
			if s.MarkReadOnly != tc.mark || s.Gate != tc.gate {
				t.Errorf("mark, gate = %d, %d, want %d, %d", s.MarkReadOnly, s.Gate, tc.mark, tc.gate)
			}
			if got := strings.Join(s.Left, " "); got != tc.left {
				t.Errorf("left = %q, want %q", got, tc.left)
			}
			if got := strings.Join(s.Flags(), " "); got != tc.flags {
				t.Errorf("flags = %q, want %q", got, tc.flags)
			}
			hint := s.Hint()
			if !strings.Contains(hint, tc.hintHas) || (tc.hintHasNot != "" && strings.Contains(hint, tc.hintHasNot)) {
				t.Errorf("hint = %q, want it to hold %q and not %q", hint, tc.hintHas, tc.hintHasNot)
			}
		})
	}
}

func TestSafetyWarningNamesTheFirstFiveAndCounts(t *testing.T) {
	s := Safety{Unguarded: []string{"a", "b", "c", "d", "e", "f", "g"}}
	var b strings.Builder
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "unguarded: 7 served tools may change or delete things and run without a person's approval: a, b, c, d, e and 2 more\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("got %q, want it to hold %q", b.String(), want)
	}
	b.Reset()
	if err := (Safety{Unguarded: []string{}}).Write(&b); err != nil || b.Len() != 0 {
		t.Errorf("a safe set wrote %q (%v), want nothing", b.String(), err)
	}
}
