package catalog

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
)

var measureFamilies = flag.Bool("families", false, "measure the ranking with each family of rules switched off")

// dbctlHeldout are requests for dbctl written from its help alone (see
// testdata/README.md); dbctl has no stored requests.
const dbctlHeldout = "testdata/dbctl_heldout.json"

func dbctlSnapshot(t testing.TB) []Entry {
	return loadJSON[[]Entry](t, "testdata/dbctl_tools.json")
}

// natsWords are the vocabulary's words for NATS's own notions.
var natsWords = words(`jetstream js jsz connz statsz accountz subject subj
	leafnode leaf leafz gateway gateways gatewayz gwy route routes routez
	healthz kv keyvalue operator op varz nuid uuid guid uniqueid
	rtt raft nak pin marker nkey stream consumer pending advisory`)

// brokerWords are the words of other brokers and devices the vocabulary
// links to NATS's notions.
var brokerWords = words(`topic partition lag consumergroup queuegroup prefetch
	vhost virtualhost exchange deadletter retention earliest seek reprocess
	commit nack requeue tombstone replicationfactor isr binding fanout
	telemetry incoming comingin buffer firmware image queue feed`)

type ruleFamily struct {
	name  string
	an    func(analyzer) analyzer
	off   families
	vocab func() // changes equivalents or related
	index func(*Index)
	w     func(*weights)
}

var ruleFamilies = []ruleFamily{
	{name: "stemming", off: offStem},
	{name: "stop words", an: func(a analyzer) analyzer { a.stopWords = false; return a }},
	{name: "compounds", an: func(a analyzer) analyzer { a.compounds = false; return a }},
	{name: "camel case", an: func(a analyzer) analyzer { a.camel = false; return a }},
	{name: "classes (general)", vocab: func() {
		equivalents = slices.DeleteFunc(slices.Clone(equivalents), func(c []string) bool {
			return !slices.ContainsFunc(c, func(w string) bool { return natsWords[w] })
		})
		for i, c := range equivalents {
			equivalents[i] = slices.DeleteFunc(slices.Clone(c), func(w string) bool { return !natsWords[w] })
		}
	}},
	{name: "related (general)", vocab: func() {
		related = slices.DeleteFunc(slices.Clone(related), func(r struct {
			from, to string
			weight   float64
		}) bool {
			return !natsLink(r.from, r.to)
		})
	}},
	{name: "nats vocabulary", vocab: func() {
		var eq [][]string
		for _, c := range equivalents {
			if natsWords[c[0]] {
				continue
			}
			eq = append(eq, slices.DeleteFunc(slices.Clone(c), func(w string) bool { return natsWords[w] }))
		}
		equivalents = eq
		related = slices.DeleteFunc(slices.Clone(related), func(r struct {
			from, to string
			weight   float64
		}) bool {
			return natsLink(r.from, r.to)
		})
	}},
	{name: "near words", index: func(x *Index) { x.sorted = nil }},
	{name: "read actions", index: func(x *Index) { x.reads, x.readOnly = nil, 1 }},
	{name: "clauses", index: func(x *Index) { x.modifier = 1 }},
	{name: "names, numbers", off: offNames},
	{name: "action grammar", off: offGrammar},
	{name: "name cover", index: func(x *Index) { x.cover = 0 }},
	{name: "phrases", index: func(x *Index) { x.phrase = 0 }},
	{name: "variety", index: func(x *Index) { x.sameWords = 1 }},
	{name: "flags' help field", w: func(w *weights) { w.field[fieldParamHelp] = 0 }},
	{name: "groups' help field", w: func(w *weights) { w.field[fieldContext] = 0 }},
}

func natsLink(from, to string) bool {
	return natsWords[from] || natsWords[to] || brokerWords[from]
}

// TestRuleFamilies prints recall@1/@5/@10 of the ranking with each family
// of rules switched off, on dbctl's held-out requests and nats's, over
// the tools' text alone and with nats's stored requests. Only figures are
// printed, never a miss. Run with -families.
func TestRuleFamilies(t *testing.T) {
	if !*measureFamilies {
		t.Skip("run with -families")
	}
	nats := all(loadJSON[[]task](t, heldoutTasks), loadJSON[[]task](t, heldout2Tasks), loadJSON[[]task](t, heldout3Tasks), loadJSON[[]task](t, heldout4Tasks), loadJSON[[]task](t, heldout5Tasks))
	var dbctl []task
	if _, err := os.Stat(dbctlHeldout); err == nil {
		dbctl = loadJSON[[]task](t, dbctlHeldout)
	}
	served, text, db := natsEntries(t), natsSnapshot(t), dbctlSnapshot(t)
	row := func(name string, index func([]Entry) *Index) {
		f := func(r recall) string {
			return fmt.Sprintf("%.1f / %.1f / %.1f", 100*r.ratio(r.at1), 100*r.ratio(r.at5), 100*r.ratio(r.at10))
		}
		d := "-"
		if dbctl != nil {
			d = f(measure(index(db), dbctl))
		}
		t.Logf("| %-20s | %-18s | %-18s | %-18s |", name, d, f(measure(index(text), nats)), f(measure(index(served), nats)))
	}
	t.Logf("| %-20s | %-18s | %-18s | %-18s |", "switched off", fmt.Sprintf("dbctl (%d)", len(dbctl)), fmt.Sprintf("nats text (%d)", len(nats)), "nats served")
	row("nothing (served)", New)
	eq, rel := equivalents, related
	for _, fam := range ruleFamilies {
		an, w := ranked, rankedWeights
		if fam.an != nil {
			an = fam.an(an)
		}
		if fam.w != nil {
			fam.w(&w)
		}
		rulesOff = fam.off
		if fam.vocab != nil {
			fam.vocab()
		}
		resetVocab()
		row(fam.name, func(e []Entry) *Index {
			x := build(e, an, w)
			if fam.index != nil {
				fam.index(x)
			}
			return x
		})
		rulesOff, equivalents, related = 0, eq, rel
		resetVocab()
	}
	bm25f := rankedWeights
	bm25f.reads, bm25f.readOnly, bm25f.modifier, bm25f.cover, bm25f.sameWords, bm25f.phrase = 0, 1, 1, 0, 1, 0
	row("all (BM25F)", func(e []Entry) *Index { return build(e, analyzer{camel: true}, bm25f) })
	row("plain BM25", func(e []Entry) *Index { return build(e, analyzer{}, plainWeights) })
}

func resetVocab() {
	defaultVocab = sync.OnceValue(func() *vocab {
		v := buildVocab()
		return &v
	})
}
