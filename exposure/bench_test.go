package exposure_test

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// BenchmarkBuildToolSet1000 measures what a start or reload costs after
// introspection: decoding the 1,000-leaf document, walking it, compiling
// every schema and applying the policy.
func BenchmarkBuildToolSet1000(b *testing.B) {
	doc, err := synthetic()
	if err != nil {
		b.Fatal(err)
	}
	p := exposure.Policy{ReadOnlyTags: []string{"impact:ro"}, ConfirmTags: []string{"ai:read_only"}}
	b.ReportAllocs()
	for b.Loop() {
		m, err := introspect.Decode(doc)
		if err != nil {
			b.Fatal(err)
		}
		set, err := exposure.Build([]exposure.LoadedApp{{App: exposure.App{Path: "/opt/synthetic"}, Model: m}}, nil, p)
		if err != nil {
			b.Fatal(err)
		}
		if set.Len() != 1000 {
			b.Fatalf("%d tools, want 1000", set.Len())
		}
	}
}
