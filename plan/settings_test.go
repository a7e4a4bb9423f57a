package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestConfigSchemaDescribesEverySetting keeps the settings and the schema
// of the configuration file in step: every setting with a key has a
// property of its type, and every property but apps is a setting.
func TestConfigSchemaDescribesEverySetting(t *testing.T) {
	type property struct {
		Ref  string   `json:"$ref"`
		Type string   `json:"type"`
		Enum []string `json:"enum"`
	}
	var doc struct {
		Properties map[string]property `json:"properties"`
		Defs       map[string]property `json:"$defs"`
	}
	if err := json.Unmarshal(configSchemaJSON, &doc); err != nil {
		t.Fatal(err)
	}
	typeOf := func(p property) string {
		if name, ok := strings.CutPrefix(p.Ref, "#/$defs/"); ok {
			if name == "duration" {
				return "duration"
			}
			return doc.Defs[name].Type
		}
		if p.Enum != nil {
			return "string"
		}
		return p.Type
	}
	keys := map[string]bool{"apps": true}
	for _, s := range New(true).set.List {
		if s.FlagOnly {
			continue
		}
		keys[s.Key()] = true
		p, ok := doc.Properties[s.Key()]
		if !ok {
			t.Errorf("--%s has no property %q in config.schema.json", s.Name, s.Key())
			continue
		}
		want := map[string]string{"*string": "string", "*[]string": "array", "*bool": "boolean", "*int": "integer", "*time.Duration": "duration"}[fmt.Sprintf("%T", s.Value)]
		if got := typeOf(p); got != want {
			t.Errorf("%s is %s in the schema, want %s", s.Key(), got, want)
		}
		if !slices.Equal(p.Enum, s.Enum) {
			t.Errorf("%s allows %v in the schema, %v on the command line", s.Key(), p.Enum, s.Enum)
		}
	}
	for key := range doc.Properties {
		if !keys[key] {
			t.Errorf("config.schema.json has %q, which is no setting", key)
		}
	}
}

// TestToolsCarriesTheSelectionAndServeEverySetting: a setting is described
// once, and each command carries the part it acts on.
func TestToolsCarriesTheSelectionAndServeEverySetting(t *testing.T) {
	names := func(p *Plan) (out []string) {
		for _, s := range p.set.List {
			out = append(out, s.Name)
		}
		return out
	}
	all, selection := names(New(true)), names(New(false))
	if !slices.Equal(all[:len(selection)], selection) || slices.Contains(selection, "http") || !slices.Contains(all, "http") {
		t.Errorf("serve %v\ntools %v", all, selection)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(all)))) != len(all) {
		t.Errorf("a setting is described twice: %v", all)
	}
}
