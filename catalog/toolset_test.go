package catalog_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

func TestFromToolSetTakesNamesParamsTheirHelpBehaviourAndTheCallersGate(t *testing.T) {
	mk := func(name string, ro bool) exposure.Tool {
		tool, err := exposure.NewCustomTool(exposure.CustomSpec{
			Name:        name,
			Description: "Reports " + name,
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"zone": map[string]any{"type": "array", "description": "Zones to report on", "items": map[string]any{"type": "string", "description": "A zone"}},
				"all":  map[string]any{"type": "boolean"},
			}},
			Fn:       func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil },
			Behavior: &exposure.Behavior{ReadOnly: ro},
		})
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
	set, err := exposure.Build(nil, []exposure.Tool{mk("zone_info", true), mk("clock_set", false)}, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	entries := catalog.FromToolSet(set, func(t exposure.Tool) bool { return t.Name() == "clock_set" })
	want := []catalog.Entry{
		{Name: "clock_set", Title: "clock_set", Description: "Reports clock_set", Params: []string{"all", "zone"}, ParamHelp: []string{"Zones to report on"}, Gated: true},
		{Name: "zone_info", Title: "zone_info", Description: "Reports zone_info", Params: []string{"all", "zone"}, ParamHelp: []string{"Zones to report on"}, ReadOnly: true},
	}
	if !slices.EqualFunc(entries, want, equalEntry) {
		t.Errorf("got %+v\nwant %+v", entries, want)
	}
	if ungated := catalog.FromToolSet(set, nil); ungated[0].Gated || ungated[1].Gated {
		t.Errorf("a nil gate func gated an entry: %+v", ungated)
	}
}

func equalEntry(a, b catalog.Entry) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description && a.Detail == b.Detail &&
		slices.Equal(a.Tags, b.Tags) && slices.Equal(a.Params, b.Params) && slices.Equal(a.ParamHelp, b.ParamHelp) && a.ReadOnly == b.ReadOnly && a.Gated == b.Gated &&
		maps.EqualFunc(a.Aliases, b.Aliases, slices.Equal) && slices.Equal(a.Examples, b.Examples) && slices.Equal(a.Context, b.Context)
}

// groupsDoc is an application whose commands sit at every depth: at the
// root, beneath one group, and beneath a group without help of its own.
const groupsDoc = `{"name":"app","help":"An application",
 "commands":[
  {"name":"version","help":"Show the version","schema":{"type":"object"},"restricted_schema":{"type":"object"}},
  {"name":"kv","help":"Interacts with a key-value store\nin several lines","commands":[
   {"name":"compact","help":"Reclaim space used by deleted keys","schema":{"type":"object"},"restricted_schema":{"type":"object"}},
   {"name":"ops","commands":[
    {"name":"prune","help":"Prune old revisions","schema":{"type":"object"},"restricted_schema":{"type":"object"}}]}]}]}`

func TestFromToolSetTakesTheHelpOfTheGroupsAboveACommand(t *testing.T) {
	m, err := introspect.Decode([]byte(groupsDoc))
	if err != nil {
		t.Fatal(err)
	}
	set, err := exposure.Build([]exposure.LoadedApp{{App: exposure.App{Path: "/opt/app"}, Model: m}}, nil, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, e := range catalog.FromToolSet(set, nil) {
		got[e.Name] = e.Context
	}
	want := map[string][]string{
		"version":      nil,
		"kv_compact":   {"Interacts with a key-value store"},
		"kv_ops_prune": {"Interacts with a key-value store"}, // ops has no help
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("context by tool = %q, want %q", got, want)
	}
}

// aliasedTool is a caller-supplied tool that has aliases and examples, as
// command tools do.
type aliasedTool struct{ exposure.Tool }

func (aliasedTool) Source() string      { return "custom" }
func (aliasedTool) Title() string       { return "clock set" }
func (aliasedTool) Tags() []string      { return nil }
func (aliasedTool) Aliases() [][]string { return [][]string{{"time", "t"}, nil} }
func (aliasedTool) Examples() []exposure.Example {
	return []exposure.Example{
		{Note: "Setting the clock\nto an hour", Command: "app clock set 10:00"},
		{Note: "Setting the clock", Command: "app clock set --utc"},
		{Command: "app clock set"},
	}
}

func TestFromToolSetTakesAliasesByWordAndTheDistinctLinesOfExampleNotes(t *testing.T) {
	base, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name: "clock_set", Description: "Sets the clock", InputSchema: map[string]any{"type": "object"},
		Fn: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	set, err := exposure.Build(nil, []exposure.Tool{aliasedTool{base}}, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	e := catalog.FromToolSet(set, nil)[0]
	if want := map[string][]string{"clock": {"time"}}; !maps.EqualFunc(e.Aliases, want, slices.Equal) {
		t.Errorf("aliases = %q, want %q (one-letter ones left out)", e.Aliases, want)
	}
	if want := []string{"Setting the clock", "to an hour"}; !slices.Equal(e.Examples, want) {
		t.Errorf("examples = %q, want %q", e.Examples, want)
	}
}
