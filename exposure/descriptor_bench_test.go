package exposure_test

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// BenchmarkDescriptorHash1000 is the part of BenchmarkBuildToolSet1000
// that hashes the descriptors, each schema streamed into SHA-256 in
// canonical form.
func BenchmarkDescriptorHash1000(b *testing.B) {
	doc, err := synthetic()
	if err != nil {
		b.Fatal(err)
	}
	m, err := introspect.Decode(doc)
	if err != nil {
		b.Fatal(err)
	}
	set, err := exposure.Build([]exposure.LoadedApp{{App: exposure.App{Path: "/opt/synthetic"}, Model: m}}, nil, exposure.Policy{})
	if err != nil {
		b.Fatal(err)
	}
	tools := set.Tools()
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range tools {
			exposure.DescriptorHash(t)
		}
	}
}
