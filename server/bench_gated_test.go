package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallGatedLegacy measures an approved call of a gated in-process
// tool on a protocol before 2026-07-28: the question, the SDK's elicitation
// round trip to the client, the handler's second pass and the log line.
func BenchmarkCallGatedLegacy(b *testing.B) {
	tool, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name:        "echo_gated",
		Description: "Returns its arguments once approved",
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"word": map[string]any{"type": "string"}},
			"additionalProperties": false,
		},
		Fn:      func(_ context.Context, input json.RawMessage) (json.RawMessage, error) { return input, nil },
		Confirm: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	s, _ := newServer(b, Config{}, customSet(b, tool))
	cs := connect(b, s, legacyVersion, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	args := map[string]any{"word": "hi"}
	b.ReportAllocs()
	for b.Loop() {
		if res := call(b, cs, "echo_gated", args); res.IsError {
			b.Fatal(text(res))
		}
	}
}
