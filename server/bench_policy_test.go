package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/policy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkListToolsUnderAPolicy is one tools/list of a nats-sized set
// (230 tools, a third read-only) over an in-memory session, without a
// policy and with one that lets the caller see the read-only tools; and
// the server's own part of the latter: deciding every tool for the
// caller and finding its cached list ("filter").
func BenchmarkListToolsUnderAPolicy(b *testing.B) {
	tools := make([]exposure.Tool, 230)
	for i := range tools {
		t, err := exposure.NewCustomTool(exposure.CustomSpec{
			Name: fmt.Sprintf("nats_cmd_%03d", i), Description: "A command",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			Fn:          func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil },
			Behavior:    &exposure.Behavior{ReadOnly: i%3 == 0},
		})
		if err != nil {
			b.Fatal(err)
		}
		tools[i] = t
	}
	set := customSet(b, tools...)
	p, err := policy.Parse("p.cedar", []byte(`permit (principal == Caller::"local", action, resource) when { resource.read_only };`), policy.Claims{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		pol  *policy.Current
		want int
	}{{"no policy", nil, 230}, {"read-only for the caller", policy.NewCurrent(p), 77}} {
		b.Run(c.name, func(b *testing.B) {
			s, _ := newServer(b, Config{Defer: DeferNever, Policy: c.pol}, set)
			cs := connect(b, s, modernVersion, nil)
			for b.Loop() {
				res, err := cs.ListTools(b.Context(), &mcp.ListToolsParams{})
				if err != nil || len(res.Tools) != c.want {
					b.Fatalf("%v, %d tools, want %d", err, len(res.Tools), c.want)
				}
			}
		})
	}
	b.Run("filter", func(b *testing.B) {
		s, _ := newServer(b, Config{Defer: DeferNever, Policy: policy.NewCurrent(p)}, set)
		l := s.listing.Load()
		for b.Loop() {
			if got := len(l.forCaller(s.accessOf(nil)).tools); got != 77 {
				b.Fatalf("%d tools, want 77", got)
			}
		}
	})
}
