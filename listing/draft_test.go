package listing

import (
	"fmt"
	"strings"
	"testing"
)

func TestWriteDraftWritesOnlyWhatIsSuggestedAndBoundsTheNamesLeft(t *testing.T) {
	var many []string
	for i := range 45 {
		many = append(many, fmt.Sprintf("tool_%02d", i))
	}
	cases := []struct {
		name        string
		apps        []DraftApp
		s           Safety
		has, hasNot []string
	}{
		{
			name: "a mapping, a prefixed app and a few left",
			apps: []DraftApp{{Path: "./bin/app", Prefix: "ops"}, {Path: "nats"}},
			s:    Safety{Confirm: []TagCount{{"impact:rw", 3}}, Gate: 2, Left: []string{"a_b"}, Other: []TagCount{{"scope:system", 4}}},
			has: []string{
				"apps:\n  - path: \"./bin/app\"\n    prefix: \"ops\"\n  - path: \"nats\"\n",
				"# Gate the commands tagged impact:rw (3 tools): 2 more tools run only\n",
				"confirm_tag:\n  - \"impact:rw\"\n",
				"# exclude_tag:\n#   - \"scope:system\"\n",
				"# Left ungated: 1 tool may change",
				"#   a_b\n",
			},
			hasNot: []string{"read_only_tag", "more (fisk-mcp tools"},
		},
		{
			name:   "nothing to map and many left",
			apps:   []DraftApp{{Path: "/opt/app"}},
			s:      Safety{Left: many},
			has:    []string{"#   tool_39\n#   and 5 more (fisk-mcp tools --config FILE lists them)\n"},
			hasNot: []string{"confirm_tag:", "read_only_tag:", "exclude_tag", "tool_40"},
		},
		{
			name: "nothing left",
			apps: []DraftApp{{Path: "/opt/app"}},
			has:  []string{"# Left ungated: none."},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteDraft(&b, tc.apps, tc.s); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.has {
				if !strings.Contains(b.String(), want) {
					t.Errorf("draft lacks %q:\n%s", want, b.String())
				}
			}
			for _, unwanted := range tc.hasNot {
				if strings.Contains(b.String(), unwanted) {
					t.Errorf("draft holds %q:\n%s", unwanted, b.String())
				}
			}
		})
	}
}
