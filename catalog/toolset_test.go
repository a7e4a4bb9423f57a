package catalog_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func TestFromToolSetTakesNamesParamsBehaviourAndTheCallersGate(t *testing.T) {
	mk := func(name string, ro bool) exposure.Tool {
		tool, err := exposure.NewCustomTool(exposure.CustomSpec{
			Name:        name,
			Description: "Reports " + name,
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"zone": map[string]any{"type": "string"}, "all": map[string]any{"type": "boolean"},
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
		{Name: "clock_set", Title: "clock_set", Description: "Reports clock_set", Params: []string{"all", "zone"}, Gated: true},
		{Name: "zone_info", Title: "zone_info", Description: "Reports zone_info", Params: []string{"all", "zone"}, ReadOnly: true},
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
		slices.Equal(a.Tags, b.Tags) && slices.Equal(a.Params, b.Params) && a.ReadOnly == b.ReadOnly && a.Gated == b.Gated
}
