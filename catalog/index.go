package catalog

import (
	"maps"
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
	terms    map[string]int32 // a stemmed word or a class name, to its term
	postings [][]posting      // by term
	related  [][]relation32   // by term: terms a query term also matches
	actions  []bool           // by term: the term is an action (see actions)
	sees     []bool           // by term: the action asks to see (see seeing)
	// reads are the terms a request to see something is also ranked by
	// (see readActions), with their weights.
	reads []readTerm
	// otherNumber scales a read action meant for the other number (list
	// for a singular thing, info for a plural one).
	otherNumber float32
	readOnly    float64 // the score factor of a read-only entry in such a request
	// nameIDF is, by entry, the sum of the idf of its name's terms, and
	// cover the weight of a name wholly said by a query (see Search).
	nameIDF []float32
	pairs   map[uint64][]int32 // adjacent terms, to the entries saying them so
	phrase  float64            // the score factor of a phrase, less 1 (see rankPhrases)
	cover   float64
	stands  [][]standing    // see posting.stands
	titled  map[uint64]bool // adjacent terms of a title
	// senses maps a thing's term to the terms of the actions it means
	// as a verb (see verbSenses).
	senses map[int32][]int32
	// says is, by term, whether a tool says it of itself: in anything
	// but its parameters' or its groups' help. helpOnly is whether only
	// that help says it, and the vocabulary does not know it. The query
	// is read by what the tools say of themselves: such a word scores
	// the entries whose flags or groups it describes, but is read as a
	// word the tools do not say (it may be the action in other words,
	// and near words are looked for), and is no near word itself.
	says, helpOnly []bool
	sorted         []namedTerm // the terms with postings, by text
	modifier       float32
	// sameWords is the factor of an entry's score for each better hit
	// matched by the same query words (see top).
	sameWords float64
	// undo is the term of removing, what to stop doing something asks
	// for ("stop sharing a stream"); plus that of incrementing, what
	// adding a number asks for ("add 5 to the counter"), and add that of
	// adding, and edit that of changing, what to make a thing that
	// exists something asks for ("make the export private"); -1 for none.
	undo, plus, add, edit int32
	an                    analyzer
	states                sync.Pool // *searchState
}

// posting is one entry holding a term, with the term's whole contribution
// to the entry's score, computed when the index is built.
type posting struct {
	doc    int32
	impact float32
	name   float32 // the term's idf when the entry's name holds it, else 0
	// stands is, for a term of the entry's aliases, 1 + the index in
	// Index.stands of the name terms it stands for; else 0.
	stands int32
	// help is whether the entry says the term only in its parameters'
	// or its groups' help: the term adds to its score and tells nothing
	// else (see Index.helpOnly).
	help bool
}

// standing is a name term an alias stands for, with its idf.
type standing struct {
	term int32
	idf  float32
}

type namedTerm struct {
	text string
	term int32
}

type readTerm struct {
	term   int32
	weight float32
	number int // 2 for a plural, 1 for a singular, 0 for either
}

type relation32 struct {
	term   int32
	weight float32
}

// New builds an index of entries. Names must be unique: of two entries with
// the same name the first is kept. The entries are copied; the caller may
// reuse the slice.
func New(entries []Entry) *Index {
	return build(entries, ranked, rankedWeights)
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

func build(entries []Entry, an analyzer, w weights) *Index {
	x := &Index{byName: map[string]int{}, terms: map[string]int32{}, an: an, modifier: w.modifier, readOnly: w.readOnly, cover: w.cover, otherNumber: w.otherNumber, sameWords: w.sameWords, phrase: w.phrase}
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
		docs[i] = x.analyzeEntry(e, w.singleField, w.field[fieldParamHelp] > 0, w.field[fieldContext] > 0)
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
	// output") "output" one, nor the help of a large group ("JetStream
	// stream management") "management" one. A word only tags, flags' or
	// groups' help say is counted over them.
	df, tagDF := make([]int, len(x.terms)), make([]int, len(x.terms))
	for _, d := range docs {
		for _, tc := range d.counts {
			tagDF[tc.term]++
			if tc.n[fieldTags]+side(tc) < tc.total() {
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
	x.nameIDF = make([]float32, len(docs))
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
			p := posting{doc: int32(i), impact: float32(idf * tf / (w.k1 + tf)), help: side(tc) == tc.total()}
			if tc.n[fieldName] > 0 && !w.singleField {
				p.name = float32(idf)
				x.nameIDF[i] += p.name
			}
			if stands := d.stands[tc.term]; len(stands) > 0 {
				credit := make([]standing, len(stands))
				for j, s := range stands {
					m := float64(df[s])
					credit[j] = standing{s, float32(math.Log(1 + (n-m+0.5)/(m+0.5)))}
				}
				x.stands = append(x.stands, credit)
				p.stands = int32(len(x.stands))
			}
			x.postings[tc.term] = append(x.postings[tc.term], p)
		}
	}
	x.titled = map[uint64]bool{}
	for _, d := range docs {
		for _, k := range d.pairs[:d.titled] {
			x.titled[k] = true
		}
	}
	if w.phrase > 0 {
		x.pairs = map[uint64][]int32{}
		for i, d := range docs {
			for _, k := range d.pairs {
				if ds := x.pairs[k]; len(ds) == 0 || ds[len(ds)-1] != int32(i) {
					x.pairs[k] = append(ds, int32(i))
				}
			}
		}
	}
	x.says, x.helpOnly = make([]bool, len(x.postings)), make([]bool, len(x.postings))
	for t, ps := range x.postings {
		x.says[t] = slices.ContainsFunc(ps, func(p posting) bool { return !p.help })
		x.helpOnly[t] = len(ps) > 0 && !x.says[t]
	}
	x.linkVocabulary(w)
	for text, t := range x.terms {
		// A word only the vocabulary links is a near word too:
		// "slowest" begins with slow, which reaches latency.
		if x.says[t] || len(x.related[t]) > 0 {
			x.sorted = append(x.sorted, namedTerm{text, t})
		}
	}
	if x.an.vocabulary {
		// The words of a class are near words too: "responder"
		// begins with respond, a word of reply's class.
		for w, class := range defaultVocab().class {
			if t, ok := x.terms[class]; ok && w != class && x.says[t] {
				x.sorted = append(x.sorted, namedTerm{w, t})
			}
		}
	}
	slices.SortFunc(x.sorted, func(a, b namedTerm) int {
		if c := strings.Compare(a.text, b.text); c != 0 {
			return c
		}
		return int(a.term - b.term)
	})
	return x
}

// linkVocabulary lets a query term reach the terms of related classes.
func (x *Index) linkVocabulary(w weights) {
	x.related = make([][]relation32, len(x.postings))
	if !x.an.vocabulary {
		x.actions = make([]bool, len(x.postings))
		x.sees = x.actions
		return
	}
	// Every word a link starts from has a term before any link is made,
	// so that a link to such a word ("rotate" to generate, which no tool
	// may say) is kept whatever the order of the map.
	for _, from := range slices.Sorted(maps.Keys(defaultVocab().related)) {
		ft, ok := x.terms[from]
		if !ok {
			// The query may still say the word: give it a term with
			// no postings so that its relations are found.
			ft = int32(len(x.postings))
			x.terms[from] = ft
			x.postings = append(x.postings, nil)
			x.related = append(x.related, nil)
			x.says, x.helpOnly = append(x.says, false), append(x.helpOnly, false)
		}
		x.helpOnly[ft] = false
	}
	for from, rels := range defaultVocab().related {
		ft := x.terms[from]
		for _, r := range rels {
			if tt, ok := x.terms[r.term]; ok {
				x.related[ft] = append(x.related[ft], relation32{tt, float32(r.weight)})
			}
		}
	}
	x.senses = map[int32][]int32{}
	for thing, acts := range defaultVocab().senses {
		t, ok := x.terms[thing]
		if !ok {
			continue
		}
		for _, a := range acts {
			if at, ok := x.terms[a]; ok {
				x.senses[t] = append(x.senses[t], at)
			}
		}
	}
	x.undo, x.plus, x.add, x.edit = x.vocabularyTerm("remove"), x.vocabularyTerm("increment"), x.vocabularyTerm("add"), x.vocabularyTerm("edit")
	x.actions = make([]bool, len(x.postings))
	x.sees = make([]bool, len(x.postings))
	for a := range defaultVocab().actions {
		if t, ok := x.terms[a]; ok {
			x.actions[t] = true
			x.sees[t] = defaultVocab().seeing[a]
		}
	}
	for _, r := range defaultVocab().reads {
		if t, ok := x.terms[r.term]; ok {
			x.reads = append(x.reads, readTerm{t, float32(r.weight) * w.reads, r.number})
		}
	}
}

// vocabularyTerm is the term of word's class, or -1 when no tool says it.
func (x *Index) vocabularyTerm(word string) int32 {
	if t, ok := x.terms[defaultVocab().term(string(stem([]byte(word))))]; ok {
		return t
	}
	return -1
}

// cloneEntry returns e sharing nothing with it.
func cloneEntry(e Entry) Entry {
	e.Tags, e.Params, e.Examples = slices.Clone(e.Tags), slices.Clone(e.Params), slices.Clone(e.Examples)
	e.ParamHelp, e.Context, e.Asked = slices.Clone(e.ParamHelp), slices.Clone(e.Context), slices.Clone(e.Asked)
	if e.Aliases != nil {
		a := make(map[string][]string, len(e.Aliases))
		for word, aliases := range e.Aliases {
			a[word] = slices.Clone(aliases)
		}
		e.Aliases = a
	}
	return e
}

// side is tc's count in the fields that say how a tool is used (its
// parameters' help) or where it sits (its groups' help) rather than what
// it is: a word only they say changes neither the reading of a query nor
// a word's rarity (see Index.helpOnly).
func side(tc termCount) int { return tc.n[fieldParamHelp] + tc.n[fieldContext] }
