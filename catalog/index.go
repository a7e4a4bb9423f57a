package catalog

import (
	"math"
	"slices"
	"strings"
	"sync"
)

// DefaultLimit is the number of hits Search returns when asked for none.
const DefaultLimit = 10

// Index ranks a fixed set of entries against free-text queries. It is built
// once per tool set and is safe for concurrent use; a changed set needs a
// new Index.
type Index struct {
	entries  []Entry // sorted by name, so a tie breaks by position
	byName   map[string]int
	terms    map[string]int32 // a word, to its term
	postings [][]posting      // by term
	related  [][]relation     // by term: terms a query term also matches
	modifier float32          // the weight of a query's modifier words (see parse)
	states   sync.Pool        // *searchState
}

// posting is one entry holding a term, with the term's whole contribution
// to the entry's score, computed when the index is built.
type posting struct {
	doc    int32
	impact float32
}

type relation struct {
	term   int32
	weight float32
}

// New builds an index of entries. Names must be unique: of two entries with
// the same name the first is kept. The entries are copied; the caller may
// reuse the slice.
func New(entries []Entry) *Index {
	return build(entries, rankedWeights)
}

// Len is the number of entries.
func (x *Index) Len() int { return len(x.entries) }

// Entry returns the entry called name, sharing nothing with the index.
func (x *Index) Entry(name string) (Entry, bool) {
	i, ok := x.byName[name]
	if !ok {
		return Entry{}, false
	}
	return cloneEntry(x.entries[i]), true
}

func build(entries []Entry, w weights) *Index {
	x := &Index{byName: map[string]int{}, terms: map[string]int32{}, modifier: w.modifier}
	for _, e := range entries {
		if _, dup := x.byName[e.Name]; dup {
			continue
		}
		x.byName[e.Name] = 0
		x.entries = append(x.entries, cloneEntry(e))
	}
	slices.SortFunc(x.entries, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	for i, e := range x.entries {
		x.byName[e.Name] = i
	}

	docs := make([]docTerms, len(x.entries))
	var total fieldCounts
	for i, e := range x.entries {
		docs[i] = x.analyzeEntry(e, w.singleField, w.field[fieldParamHelp] > 0)
		for f := range numFields {
			total[f] += docs[i].length[f]
		}
	}
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = math.Max(1, float64(total[f])/float64(max(1, len(docs))))
	}
	// A term's rarity is counted over the fields that say what a tool
	// does: a tag most tools carry (scope:user) must not make "user" a
	// word every tool says, nor a flag most tools have ("Produce JSON
	// output") "output" one. A word only tags or flags' help say is
	// counted over them.
	df, tagDF := make([]int, len(x.terms)), make([]int, len(x.terms))
	for _, d := range docs {
		for _, tc := range d.counts {
			tagDF[tc.term]++
			if tc.n[fieldTags]+tc.n[fieldParamHelp] < tc.total() {
				df[tc.term]++
			}
		}
	}
	for t := range df {
		if df[t] == 0 {
			df[t] = tagDF[t]
		}
	}
	x.postings = make([][]posting, len(x.terms))
	for t := range x.postings {
		x.postings[t] = make([]posting, 0, df[t])
	}
	n := float64(len(docs))
	for i, d := range docs {
		for _, tc := range d.counts {
			tf := 0.0
			for f := range numFields {
				if c := tc.n[f]; c > 0 {
					norm := 1 - w.b[f] + w.b[f]*float64(d.length[f])/avg[f]
					tf += w.field[f] * float64(c) / norm
				}
			}
			m := float64(df[tc.term])
			idf := math.Log(1 + (n-m+0.5)/(m+0.5))
			p := posting{doc: int32(i), impact: float32(idf * tf / (w.k1 + tf))}
			x.postings[tc.term] = append(x.postings[tc.term], p)
		}
	}
	x.related = make([][]relation, len(x.postings))
	if w.related {
		x.relate()
	}
	return x
}

// relate lets a query term reach the terms related to it (see related).
func (x *Index) relate() {
	// Every word a link starts from has a term, with no postings if no
	// tool says it, so that a query saying it finds its links.
	for _, r := range related {
		if _, ok := x.terms[r.from]; !ok {
			x.terms[r.from] = int32(len(x.postings))
			x.postings, x.related = append(x.postings, nil), append(x.related, nil)
		}
	}
	for _, r := range related {
		if to, ok := x.terms[r.to]; ok {
			from := x.terms[r.from]
			x.related[from] = append(x.related[from], relation{to, float32(r.weight)})
		}
	}
}

// cloneEntry returns e sharing nothing with it.
func cloneEntry(e Entry) Entry {
	e.Tags, e.Params, e.Examples = slices.Clone(e.Tags), slices.Clone(e.Params), slices.Clone(e.Examples)
	e.ParamHelp, e.Asked = slices.Clone(e.ParamHelp), slices.Clone(e.Asked)
	if e.Aliases != nil {
		a := make(map[string][]string, len(e.Aliases))
		for word, aliases := range e.Aliases {
			a[word] = slices.Clone(aliases)
		}
		e.Aliases = a
	}
	return e
}
