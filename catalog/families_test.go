package catalog

import (
	"flag"
	"fmt"
	"testing"
)

var measureFamilies = flag.Bool("families", false, "measure the ranking with each family of rules switched off")

// ruleFamilies are the parts of the ranking beyond BM25F over the tools'
// fields, each switched off by a change of weights.
var ruleFamilies = []struct {
	name string
	off  func(*weights)
}{
	{"related words", func(w *weights) { w.related = false }},
	{"clauses", func(w *weights) { w.modifier = 1 }},
	{"flags' help field", func(w *weights) { w.field[fieldParamHelp] = 0 }},
}

// TestRuleFamilies prints recall@1/@5/@10 of the ranking as served, with
// each family switched off, with the rules about words off (BM25F over
// the same fields alone) and for plain BM25, on dbctl's held-out requests and on nats's, over
// the tools' text alone and with nats's stored requests. It prints
// figures only, never a miss. Run with -families.
func TestRuleFamilies(t *testing.T) {
	if !*measureFamilies {
		t.Skip("run with -families")
	}
	nats := natsHeldout(t)
	dbctl := loadJSON[[]task](t, dbctlHeldoutTasks)
	served, text, db := natsEntries(t), natsSnapshot(t), dbctlSnapshot(t)
	f := func(r recall) string {
		return fmt.Sprintf("%.1f / %.1f / %.1f", 100*r.ratio(r.at1), 100*r.ratio(r.at5), 100*r.ratio(r.at10))
	}
	row := func(name string, w weights) {
		t.Logf("| %-20s | %-18s | %-18s | %-18s |", name, f(measure(build(db, w), dbctl)), f(measure(build(text, w), nats)), f(measure(build(served, w), nats)))
	}
	t.Logf("| %-20s | %-18s | %-18s | %-18s |", "switched off", fmt.Sprintf("dbctl (%d)", len(dbctl)), fmt.Sprintf("nats text (%d)", len(nats)), "nats served")
	row("nothing (served)", rankedWeights)
	for _, fam := range ruleFamilies {
		w := rankedWeights
		fam.off(&w)
		row(fam.name, w)
	}
	bm25f := rankedWeights
	bm25f.related, bm25f.modifier = false, 1
	row("rules (BM25F)", bm25f)
	row("plain BM25", plainWeights)
}
