package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodeListed puts an encoded schema in place of scanning it again; the
// bytes must be encodeTool's whatever the descriptor holds around it.
func TestEncodeListedWritesWhatEncodeToolWrites(t *testing.T) {
	var tools []*mcp.Tool
	for _, output := range []bool{false, true} {
		for _, tool := range fixtureSet(t, exposure.Policy{ReadOnlyTags: []string{"impact:ro"}}).Tools() {
			tools = append(tools, descriptor(tool, output))
		}
	}
	for _, d := range tools {
		if _, ok := appendListed(nil, d); !ok {
			t.Errorf("%s: the descriptor descriptor builds is left to encodeTool", d.Name)
		}
	}
	schema := json.RawMessage(`{"properties":{"a":{"type":"string"}},"type":"object"}`)
	yes, no := true, false
	type other struct{ A int }
	tools = append(tools,
		&mcp.Tool{Name: "bare", InputSchema: schema},
		&mcp.Tool{Name: "described", Description: "a \"quoted\" <description> & \u2028 \xff", Title: "t\n", InputSchema: schema},
		&mcp.Tool{Name: "meta", Meta: mcp.Meta{"inputSchema": nil, "x": []any{"inputSchema", nil}, "b": true}, InputSchema: schema},
		&mcp.Tool{Name: "empty-meta", Meta: mcp.Meta{}, InputSchema: schema, Annotations: &mcp.ToolAnnotations{}},
		&mcp.Tool{Name: "hints", InputSchema: schema, Annotations: &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no, Title: "a <title>"}},
		&mcp.Tool{Name: "all-hints", InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &yes}},
		&mcp.Tool{Name: "typed-nil-output", InputSchema: schema, OutputSchema: map[string]any(nil)},
		&mcp.Tool{Name: "other-output", InputSchema: schema, OutputSchema: other{1}},
		&mcp.Tool{Name: "other-meta", Meta: mcp.Meta{"o": other{2}}, InputSchema: schema},
		&mcp.Tool{Name: "everything", Meta: mcp.Meta{"k": "v"}, Description: "d", Title: "T", InputSchema: schema,
			OutputSchema: map[string]any{"inputSchema": nil}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &yes},
			Icons: []mcp.Icon{{Source: "data:,"}}},
		&mcp.Tool{Name: "not-encoded", InputSchema: map[string]any{"type": "object"}},
	)
	for _, d := range tools {
		want, err := encodeTool(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeListed(d)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: encodeListed\n got %s (%v)\nwant %s", d.Name, got, err, want)
		}
	}
}

// encodeListed writes mcp.Tool's members itself: a field the SDK adds
// must be added there, or it would be missing from tools/list.
func TestEncodeListedKnowsEveryFieldOfTheSDKsTool(t *testing.T) {
	known := []string{"_meta", "annotations", "description", "inputSchema", "name", "outputSchema", "title", "icons"}
	typ := reflect.TypeFor[mcp.Tool]()
	var got []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		got = append(got, name)
	}
	if !slices.Equal(got, known) {
		t.Errorf("mcp.Tool's JSON members are %q; encodeListed writes %q: update it", got, known)
	}
	annotations := []string{"DestructiveHint", "IdempotentHint", "OpenWorldHint", "ReadOnlyHint", "Title"}
	typ = reflect.TypeFor[mcp.ToolAnnotations]()
	got = nil
	for i := range typ.NumField() {
		got = append(got, typ.Field(i).Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, annotations) {
		t.Errorf("mcp.ToolAnnotations has fields %q; encodeListed writes %q: update it", got, annotations)
	}
}
