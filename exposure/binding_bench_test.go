package exposure_test

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// BenchmarkBuildToolSet1000OfARealBinary is BenchmarkBuildToolSet1000 with
// the application at a real file, so every command tool also captures its
// binary's identity (a stat each) for its fingerprint.
func BenchmarkBuildToolSet1000OfARealBinary(b *testing.B) {
	doc, err := synthetic()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m, err := introspect.Decode(doc)
		if err != nil {
			b.Fatal(err)
		}
		set, err := exposure.Build([]exposure.LoadedApp{{App: exposure.App{Path: fixtureBin}, Model: m}}, nil, exposure.Policy{})
		if err != nil {
			b.Fatal(err)
		}
		if set.Len() != 1000 {
			b.Fatalf("%d tools, want 1000", set.Len())
		}
	}
}
