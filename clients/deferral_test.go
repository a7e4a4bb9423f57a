package clients

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

var byDefault = Deferral{Mode: DeferAuto, Threshold: 40}

func TestAdviseDefersASetAboveTheClientsCap(t *testing.T) {
	cases := []struct {
		name, client string
		served       int
		d            Deferral
		args         []string
		note         string // a part of the note; "" for none
	}{
		{"under the cap", "cursor", 80, byDefault, nil, ""},
		{"under what its own tools leave", "vscode", 88, Deferral{Mode: DeferNever, Chosen: true}, nil, ""},
		{"above what its own tools leave, never is replaced", "vscode", 89, Deferral{Mode: DeferNever, Chosen: true}, []string{"--defer=always"}, "more than the 88 VS Code takes (128 less its own 40)"},
		{"at the cap, listed in full", "windsurf", 50, Deferral{Mode: DeferNever, Chosen: true}, nil, ""},
		{"above, the default defers", "vscode", 230, byDefault, nil, "it defers them (--defer auto, past 40 tools)"},
		{"above, always defers", "cursor", 81, Deferral{Mode: DeferAlways, Threshold: 40, Chosen: true}, nil, "it defers them (--defer always)"},
		{"above, a threshold at the cap defers", "cursor", 81, Deferral{Mode: DeferAuto, Threshold: 80}, nil, "past 80 tools"},
		{"above, never is replaced", "windsurf", 51, Deferral{Mode: DeferNever, Threshold: 40, Chosen: true}, []string{"--defer=always"}, "replacing --defer never"},
		{"above, a threshold over the cap is replaced", "vscode", 230, Deferral{Mode: DeferAuto, Threshold: 200}, []string{"--defer=always"}, "replacing --defer auto with --defer-threshold 200"},
		{"uncounted, the settings defer", "vscode", -1, byDefault, nil, ""},
		{"uncounted, the settings would not", "windsurf", -1, Deferral{Mode: DeferNever}, nil, "could not be counted"},
		{"claude code lists every tool", "claude-code", 230, byDefault, []string{"--defer=never"}, "ENABLE_TOOL_SEARCH=false"},
		{"claude code keeps a chosen mode", "claude-code", 230, Deferral{Mode: DeferAuto, Threshold: 40, Chosen: true}, nil, "keeps your --defer auto"},
		{"no cap known", "claude-desktop", 230, byDefault, nil, ""},
		{"gemini cli has no cap: never stays", "gemini", 238, Deferral{Mode: DeferNever, Chosen: true}, nil, ""},
		{"copilot cli has no cap", "copilot", 238, Deferral{Mode: DeferNever, Chosen: true}, nil, ""},
		{"opencode has no cap", "opencode", 238, Deferral{Mode: DeferNever, Chosen: true}, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := Advise(tc.client, tc.served, tc.d)
			if !slices.Equal(a.Args, tc.args) {
				t.Errorf("args = %q, want %q", a.Args, tc.args)
			}
			if tc.note == "" && a.Note != "" || !strings.Contains(a.Note, tc.note) {
				t.Errorf("note = %q, want one with %q", a.Note, tc.note)
			}
		})
	}
}

func TestAdviceReplacesTheDeferFlagItSets(t *testing.T) {
	args := []string{"--confirm-tag=ops:prod", "--defer=never", "--defer-threshold=200"}
	got := Advice{Args: []string{"--defer=always"}}.Apply(args)
	if want := []string{"--confirm-tag=ops:prod", "--defer-threshold=200", "--defer=always"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (Advice{Note: "kept"}).Apply(args); !slices.Equal(got, args) {
		t.Errorf("advice without arguments changed %q to %q", args, got)
	}
	if args[1] != "--defer=never" {
		t.Error("Apply changed its input")
	}
}

// Every client has what a configuration needs: a place in Names, a hint,
// and a rendering; Cursor and Windsurf read Claude Desktop's shape.
func TestEveryClientRendersWithAHint(t *testing.T) {
	l := Launch{Name: "nats", Command: "/usr/local/bin/fisk-mcp", Args: []string{"serve", "/usr/bin/nats"}}
	for _, name := range Names {
		if _, ok := Known[name]; !ok || Hints[name] == "" {
			t.Errorf("%s: known %v, hint %q", name, ok, Hints[name])
		}
		out, err := Render(name, l)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "cursor" || name == "windsurf" {
			var doc struct {
				MCPServers map[string]stdioEntry `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.MCPServers["nats"].Command != l.Command || !slices.Equal(doc.MCPServers["nats"].Args, l.Args) {
				t.Errorf("%s: %v\n%s", name, err, out)
			}
		}
	}
}
