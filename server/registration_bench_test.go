package server

import (
	"os"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/fixture/app"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// BenchmarkRegistrations1000 is what New spends on a 1,000-tool set before
// the first tools/list: every listed tool's descriptor, its input schema
// encoded, and its wire encoding (see registrations), then the listing.
func BenchmarkRegistrations1000(b *testing.B) {
	env := append(os.Environ(), app.SyntheticEnv+"=1000")
	set, err := exposure.Load(b.Context(), []exposure.App{{Path: fixtureBin, Globals: []string{"server"}}}, nil,
		exposure.Policy{ReadOnlyTags: []string{"impact:ro"}}, exposure.LoadOptions{Introspect: introspect.Options{Env: env}})
	if err != nil {
		b.Fatal(err)
	}
	s, _ := newServer(b, Config{Defer: DeferNever}, set)
	b.ReportAllocs()
	for b.Loop() {
		want := s.registrations(set, false)
		if l := listingOf(want, false); len(l.encoded) != 1000 {
			b.Fatalf("%d tools encoded, want 1000", len(l.encoded))
		}
	}
}
