package nats

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// catalogSnapshot is the nats tool set as catalog entries, kept so that the
// search-quality test of catalog runs without building natscli.
var catalogSnapshot = filepath.Join("..", "..", "catalog", "testdata", "nats_tools.json")

var updateCatalog = flag.Bool("update-catalog", false, "rewrite "+catalogSnapshot+" from the nats build")

// natsCatalogEntries loads nats as fisk-mcp serves it (hidden and ai:deny
// commands left out, names the command path joined with "_"), under the
// policy the other tests serve it with but without exposed globals: a
// global flag is a parameter of every tool and tells the search nothing.
func natsCatalogEntries(t *testing.T) []catalog.Entry {
	t.Helper()
	_, nats := requireBinaries(t)
	p := exposure.Policy{ReadOnlyTags: []string{"impact:ro"}, ConfirmTags: []string{"impact:rw"}}
	set, err := exposure.Load(t.Context(), []exposure.App{{Path: nats}}, nil, p,
		exposure.LoadOptions{Introspect: introspect.Options{Env: newSandbox(t).env()}})
	if err != nil {
		t.Fatalf("loading nats: %v", err)
	}
	return catalog.FromToolSet(set, func(t exposure.Tool) bool {
		c, ok := t.(exposure.Confirmable)
		return !ok || c.NeedsConfirm()
	}, nil)
}

// The snapshot the search-quality test ranks must be the tool set the real
// nats build serves; run with -update-catalog to rewrite it after a change
// of natscli or of how tools are named.
func TestCatalogSnapshotNamesMatchTheServedNATSTools(t *testing.T) {
	entries := natsCatalogEntries(t)
	if *updateCatalog {
		if err := os.WriteFile(catalogSnapshot, encodeEntries(t, entries), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d entries to %s", len(entries), catalogSnapshot)
	}
	raw, err := os.ReadFile(catalogSnapshot)
	if err != nil {
		t.Fatalf("reading the snapshot (rewrite it with -update-catalog): %v", err)
	}
	var snap []catalog.Entry
	if err := json.Unmarshal(raw, &snap); err != nil {
		t.Fatalf("decoding %s (rewrite it with -update-catalog): %v", catalogSnapshot, err)
	}
	served := names(entries)
	kept := names(snap)
	if len(served) != natsVisibleLeaves {
		t.Errorf("nats serves %d tools, want %d", len(served), natsVisibleLeaves)
	}
	if !slices.Equal(served, kept) {
		t.Errorf("the snapshot is stale (rewrite it with -update-catalog):\nonly served: %v\nonly in the snapshot: %v",
			difference(served, kept), difference(kept, served))
	}
}

func names(entries []catalog.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name
	}
	return out
}

// encodeEntries writes one entry a line, so that a change of the app
// reads as a diff of the tools it touched.
func encodeEntries(t *testing.T, entries []catalog.Entry) []byte {
	t.Helper()
	b, err := testsupport.JSONLines(entries)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The requests fisk-mcp knows for nats's commands reach the tools the real
// build serves, by command path and whatever the tools are named: every
// served tool gets those of its command, and no command they are known
// for is missing from the build (a natscli that renamed one would leave
// its requests unused, silently).
func TestKnownRequestsReachTheServedNATSTools(t *testing.T) {
	_, nats := requireBinaries(t)
	p := exposure.Policy{ReadOnlyTags: []string{"impact:ro"}, ConfirmTags: []string{"impact:rw"}}
	set, err := exposure.Load(t.Context(), []exposure.App{{Path: nats, Prefix: "prod"}}, nil, p,
		exposure.LoadOptions{Introspect: introspect.Options{Env: newSandbox(t).env()}})
	if err != nil {
		t.Fatalf("loading nats: %v", err)
	}
	entries := catalog.FromToolSet(set, nil, nil)
	served := map[string]bool{}
	given := 0
	for _, e := range entries {
		served[e.Title] = true
		want := catalog.Asked("nats", e.Title)
		if !slices.Equal(e.Asked, want) {
			t.Errorf("%s (%s) was given %d requests, want the %d known for it", e.Name, e.Title, len(e.Asked), len(want))
		}
		if len(e.Asked) > 0 {
			given++
		}
	}
	if given != natsVisibleLeaves {
		t.Errorf("%d of the %d served tools were given requests, want all of them", given, natsVisibleLeaves)
	}
	var snap []catalog.Entry
	raw, err := os.ReadFile(catalogSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &snap); err != nil {
		t.Fatal(err)
	}
	// The known requests are by the snapshot's titles (a test of catalog
	// holds them to it), so each of its commands must be served.
	for _, e := range snap {
		if !served[e.Title] {
			t.Errorf("requests are known for %q, which this nats does not serve", e.Title)
		}
	}
}
