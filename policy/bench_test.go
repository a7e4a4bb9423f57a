package policy_test

import (
	"fmt"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/policy"
)

// natsSized is a synthetic set the size of nats's: 230 tools, a third
// read-only, a tenth destructive and gated.
func natsSized() []*tool {
	out := make([]*tool, 230)
	for i := range out {
		out[i] = &tool{name: fmt.Sprintf("nats_cmd_%03d", i), app: "nats", tags: []string{"stream", "kv"},
			readOnly: i%3 == 0, destr: i%10 == 1, gated: i%10 == 1}
	}
	return out
}

// BenchmarkAllowed is one decision of the teams policy for a viewer.
func BenchmarkAllowed(b *testing.B) {
	p, err := policy.Parse("teams.cedar", []byte(teams), policy.Claims{})
	if err != nil {
		b.Fatal(err)
	}
	viewer := p.User("https://auth.example.com#bob", map[string]any{"groups": []any{"viewers"}})
	tools := natsSized()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.Allowed(viewer, policy.Call, tools[i%len(tools)])
	}
}

// BenchmarkListFilter is what filtering a nats-sized list for one caller
// costs: one list decision per tool.
func BenchmarkListFilter(b *testing.B) {
	p, err := policy.Parse("teams.cedar", []byte(teams), policy.Claims{})
	if err != nil {
		b.Fatal(err)
	}
	viewer := p.User("https://auth.example.com#bob", map[string]any{"groups": []any{"viewers"}})
	tools := natsSized()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, t := range tools {
			if p.Allowed(viewer, policy.List, t) {
				n++
			}
		}
		if n != 77 {
			b.Fatalf("%d tools allowed, want 77", n)
		}
	}
}
