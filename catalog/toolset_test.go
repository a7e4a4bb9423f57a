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
	entries := catalog.FromToolSet(set, func(t exposure.Tool) bool { return t.Name() == "clock_set" }, nil)
	want := []catalog.Entry{
		{Name: "clock_set", Title: "clock_set", Description: "Reports clock_set", Params: []string{"all", "zone"}, ParamHelp: []string{"Zones to report on"}, Gated: true},
		{Name: "zone_info", Title: "zone_info", Description: "Reports zone_info", Params: []string{"all", "zone"}, ParamHelp: []string{"Zones to report on"}, ReadOnly: true},
	}
	if !slices.EqualFunc(entries, want, equalEntry) {
		t.Errorf("got %+v\nwant %+v", entries, want)
	}
	if ungated := catalog.FromToolSet(set, nil, nil); ungated[0].Gated || ungated[1].Gated {
		t.Errorf("a nil gate func gated an entry: %+v", ungated)
	}
}

func equalEntry(a, b catalog.Entry) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description && a.Detail == b.Detail &&
		slices.Equal(a.Tags, b.Tags) && slices.Equal(a.Params, b.Params) && slices.Equal(a.ParamHelp, b.ParamHelp) && a.ReadOnly == b.ReadOnly && a.Gated == b.Gated &&
		maps.EqualFunc(a.Aliases, b.Aliases, slices.Equal) && slices.Equal(a.Examples, b.Examples)
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
	e := catalog.FromToolSet(set, nil, nil)[0]
	if want := map[string][]string{"clock": {"time"}}; !maps.EqualFunc(e.Aliases, want, slices.Equal) {
		t.Errorf("aliases = %q, want %q (one-letter ones left out)", e.Aliases, want)
	}
	if want := []string{"Setting the clock", "to an hour"}; !slices.Equal(e.Examples, want) {
		t.Errorf("examples = %q, want %q", e.Examples, want)
	}
}

// An application command's entry holds the requests given for its
// application and command path, whatever the tool is named; a custom tool
// and another application's command get none, and Unused names what no
// served tool runs.
func TestFromToolSetGivesEachCommandTheRequestsOfItsApplicationAndPath(t *testing.T) {
	m, err := introspect.Decode([]byte(groupsDoc))
	if err != nil {
		t.Fatal(err)
	}
	custom, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name: "compact", Description: "Compacts", InputSchema: map[string]any{"type": "object"},
		Fn: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	set, err := exposure.Build([]exposure.LoadedApp{{App: exposure.App{Path: "/opt/app", Prefix: "prod"}, Model: m}}, []exposure.Tool{custom}, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	r := catalog.Requests{}
	r.Add("app", "kv compact", "free the disk my buckets hold")
	r.Add("app", "kv compact", "free the disk my buckets hold") // once
	r.Add("app", "kv compact", "zebra giraffe room")
	r.Add("app", "kv ops purge", "a command the app does not have")
	r.Add("other", "version", "another application's")
	if r.Len() != 4 {
		t.Errorf("Len = %d, want 4", r.Len())
	}
	got := map[string][]string{}
	for _, e := range catalog.FromToolSet(set, nil, r) {
		got[e.Name] = e.Asked
	}
	want := map[string][]string{
		"prod_kv_compact":   {"free the disk my buckets hold", "zebra giraffe room"},
		"prod_kv_ops_prune": nil,
		"prod_version":      nil,
		"compact":           nil,
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("requests by tool = %q, want %q", got, want)
	}
	if unused, want := r.Unused(set), []string{"app kv ops purge", "other version"}; !slices.Equal(unused, want) {
		t.Errorf("Unused = %q, want %q", unused, want)
	}
	// The requests are searched: only they say "zebra".
	entries := catalog.FromToolSet(set, nil, r)
	if hits := catalog.New(entries).Search("zebra giraffe room", 1); len(hits) != 1 || hits[0].Name != "prod_kv_compact" {
		t.Errorf("searching the given words found %v, want prod_kv_compact", hits)
	}
	if hits := catalog.New(catalog.FromToolSet(set, nil, nil)).Search("zebra giraffe room", 1); len(hits) != 0 {
		t.Errorf("without the requests, the same words found %v, want nothing", hits)
	}
}
