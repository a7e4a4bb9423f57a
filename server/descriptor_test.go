package server

import (
	"encoding/json"
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
	schema := json.RawMessage(`{"properties":{"a":{"type":"string"}},"type":"object"}`)
	yes := true
	tools = append(tools,
		&mcp.Tool{Name: "bare", InputSchema: schema},
		&mcp.Tool{Name: "described", Description: `a "quoted" <description>`, InputSchema: schema},
		&mcp.Tool{Name: "meta-only", Meta: mcp.Meta{"inputSchema": nil, "x": []any{"inputSchema", nil}}, InputSchema: schema},
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
