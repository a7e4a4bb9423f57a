package elicit_test

import (
	"context"
	"log/slog"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server installs the gate's middleware once and calls Check from the
// handler of every gated tool, on every round of the call: after validating
// the arguments, before taking a concurrency slot and starting the command.
func Example() {
	gate, err := elicit.NewGate(elicit.Options{
		ServerName: "nats",
		// Key: elicit.LoadKey("/etc/fisk-mcp/state.key") for replicas.
		OnDecision: func(ctx context.Context, r elicit.Refusal) {
			slog.InfoContext(ctx, "approval", "tool", r.Tool, "decision", r.Decision, "duration", r.Duration)
		},
	})
	if err != nil {
		panic(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "fisk-mcp", Version: "v1"}, nil)
	server.AddReceivingMiddleware(gate.Middleware())

	server.AddTool(&mcp.Tool{Name: "stream_rm", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// 1. Validate req.Params.Arguments and build the argv (not shown).
			res, d, err := gate.Check(ctx, req, elicit.Prompt{
				Tool:        req.Params.Name,
				Arguments:   req.Params.Arguments,
				CommandLine: "nats stream rm ORDERS --force",
				Trigger:     "ai:confirm",
				// The tool's identity (exposure.ToolSet.Binding): an
				// approval given while the tool was reloaded is refused.
				Binding: "3f2a...",
			})
			slog.InfoContext(ctx, "approval", "tool", req.Params.Name, "decision", d)
			if err != nil {
				return nil, err // a requestState this server did not issue
			}
			if res != nil {
				return res, nil // the question, or a refusal the model can read
			}
			// 2. Take a concurrency slot and run the command under its own timeout.
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil
		})
}
