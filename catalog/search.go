package catalog

import (
	"slices"
)

// maxQuery bounds the bytes of a query that are read, and maxQueryTerms the
// terms it is ranked by; the rest is ignored, so a pasted wall of text
// costs no more than a paragraph.
const (
	maxQuery      = 1024
	maxQueryTerms = 64
)

// searchState is the scratch space of one search, pooled so that a search
// allocates only its result.
type searchState struct {
	sc      scratch
	prev    []byte // the previous word of the query, for compounds
	joined  []byte
	query   []queryTerm
	scores  []float64
	covered []float64 // by entry: the idf of its name's terms the query says
	// thing is, by entry, whether a query term that is not an action
	// matched it: only such an entry is ranked by the read actions.
	thing []bool
	// said is, by entry, the set of query terms that matched it (bit i
	// for st.query[i]), for the variety of the result (see top).
	said    []uint64
	touched []int32
	nouns   []int32 // action terms the query uses as things (see parse)
	// verb is the first word of the query that is not a stop word, and
	// verbStart:verbEnd its terms in query, for a particle that follows
	// it apart (see parse).
	phrases            []uint64 // adjacent terms of the query
	last               int32
	verb               []byte
	verbStart, verbEnd int
	best               []int32
	// question and read: see asks and parse.
	question int
	read     bool
	// number is 2 when the first thing a query names is plural
	// ("which consumers"), 1 when it is singular, 0 when it names none.
	number int
}

// Search returns up to limit entries that match query, best first; limit
// <= 0 means DefaultLimit. An entry that matches nothing the query says
// (or, for a query naming no action, implies: list) is not a hit, so an
// empty or unmatched query returns nothing. Equal scores are
// ordered by name, so the same query on the same set always gives the same
// list.
//
// A query word matches a tool's word when both reduce to the same stem or
// to the same class of equivalents (rm, del, delete, remove); a related
// class (show for list) matches at a lower weight; two adjacent query words
// also match their compound (back up: backup). The result is a ranking, not
// text: what is shown to a model is built from the entries by the caller.
func (x *Index) Search(query string, limit int) []Hit {
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, len(x.entries))
	if limit == 0 {
		return nil
	}
	if len(query) > maxQuery {
		query = query[:maxQuery] // a cut rune is a separator, not a letter
	}
	st, _ := x.states.Get().(*searchState)
	if st == nil {
		st = &searchState{scores: make([]float64, len(x.entries)), covered: make([]float64, len(x.entries)), thing: make([]bool, len(x.entries)), said: make([]uint64, len(x.entries))}
	}
	defer x.states.Put(st)

	x.parse(query, st)
	for i, q := range st.query {
		thing := !x.actions[q.term] || slices.Contains(st.nouns, q.term)
		for _, p := range x.postings[q.term] {
			if st.scores[p.doc] == 0 {
				st.touched = append(st.touched, p.doc)
			}
			if !p.help {
				// A flag's help says how a tool is used, not what it
				// is: it neither makes the query's word a thing the
				// entry is about nor one that matched it (see top).
				st.thing[p.doc] = st.thing[p.doc] || thing
				st.said[p.doc] |= 1 << uint(i)
			}
			st.scores[p.doc] += float64(q.weight) * float64(p.impact)
			st.covered[p.doc] += float64(q.weight) * float64(p.name)
			if p.stands != 0 {
				st.covered[p.doc] += float64(q.weight) * x.aliasCover(st, p.stands-1)
			}
		}
	}
	if st.read {
		x.rankRead(st)
	}
	x.rankCover(st)
	x.rankPhrases(st)
	hits := x.top(st, limit)
	for _, d := range st.touched {
		st.scores[d], st.covered[d], st.thing[d], st.said[d] = 0, 0, false, 0
	}
	st.touched, st.query = st.touched[:0], st.query[:0]
	return hits
}

// rankRead ranks the entries a request to see something matched by the
// read actions too, and favours those that only read. The read actions
// reach only entries the query's own words matched: "how far behind is my
// consumer" must not list every list.
func (x *Index) rankRead(st *searchState) {
	for _, r := range x.reads {
		weight := float64(r.weight)
		if r.number != 0 && r.number != st.number {
			weight *= float64(x.otherNumber)
		}
		// What the query already reaches (show reaches info) counts
		// once: the read action only tops it up.
		for _, q := range st.query {
			if q.term == r.term {
				weight -= float64(q.weight)
			}
		}
		if weight <= 0 {
			continue
		}
		for _, p := range x.postings[r.term] {
			if st.thing[p.doc] {
				st.scores[p.doc] += weight * float64(p.impact)
				st.covered[p.doc] += weight * float64(p.name)
			}
		}
	}
	if x.readOnly == 1 {
		return
	}
	for _, d := range st.touched {
		if x.entries[d].ReadOnly {
			st.scores[d] *= x.readOnly
		}
	}
}

// rankCover favours the entries whose name the query says the most of:
// a command's path is the best summary of what it does, and a word of it
// the query does not say ("bench" in bench_pub, for "send a message")
// speaks for another tool. Each word counts by its idf, so that a group
// word most tools share (auth) matters little; the share said is squared,
// so that a name said whole stands out from one said in half.
func (x *Index) rankCover(st *searchState) {
	if x.cover == 0 {
		return
	}
	for _, d := range st.touched {
		if x.nameIDF[d] > 0 {
			said := min(1, st.covered[d]/float64(x.nameIDF[d]))
			st.scores[d] *= 1 + x.cover*said*said
		}
	}
}

// rankPhrases favours the entries whose title, summary or notes say two
// adjacent words of the query next to each other too ("signing key",
// "pull consumer"): a phrase is more specific than its words.
func (x *Index) rankPhrases(st *searchState) {
	for _, k := range st.phrases {
		for _, d := range x.pairs[k] {
			if st.scores[d] > 0 {
				st.scores[d] *= 1 + x.phrase
			}
		}
	}
}

// aliasCover is how much of an entry's name an alias the query says
// says: the idf of the name terms it stands for, but of those the query
// does not say itself, which count already ("micro services" says
// service once, not twice).
func (x *Index) aliasCover(st *searchState, stands int32) float64 {
	var idf float64
	for _, s := range x.stands[stands] {
		if !slices.ContainsFunc(st.query, func(q queryTerm) bool { return q.term == s.term }) {
			idf += float64(s.idf)
		}
	}
	return idf
}

// top selects the limit best of the touched entries: higher score first,
// then lower position, which is name order. Past the first, an entry
// matched by exactly the words of one already chosen counts less for
// each such one (see sameWords): five siblings that each say "account"
// and "list" tell the caller less than four of them and the one tool
// that reports on accounts.
func (x *Index) top(st *searchState, limit int) []Hit {
	pool := min(len(st.touched), limit*poolFactor)
	best := st.best[:0]
	better := func(a, b int32) bool {
		if st.scores[a] != st.scores[b] {
			return st.scores[a] > st.scores[b]
		}
		return a < b
	}
	for _, d := range st.touched {
		switch {
		case st.scores[d] <= 0:
			continue
		case len(best) < pool:
			best = append(best, d)
		case better(d, best[pool-1]):
			best[pool-1] = d
		default:
			continue
		}
		for i := len(best) - 1; i > 0 && better(best[i], best[i-1]); i-- {
			best[i], best[i-1] = best[i-1], best[i]
		}
	}
	// Greedy re-ranking of the pool: best holds the chosen first, then
	// the candidates in score order.
	n := min(limit, len(best))
	for k := 1; k < n; k++ {
		pick, pickScore := k, -1.0
		for c := k; c < len(best); c++ {
			score := st.scores[best[c]]
			for _, chosen := range best[:k] {
				if st.said[chosen] == st.said[best[c]] {
					score *= x.sameWords
				}
			}
			if score > pickScore {
				pick, pickScore = c, score
			}
		}
		d := best[pick]
		copy(best[k+1:pick+1], best[k:pick])
		best[k] = d
		st.scores[d] = pickScore
	}
	best = best[:n]
	hits := make([]Hit, len(best))
	for i, d := range best {
		hits[i] = Hit{Name: x.entries[d].Name, Score: st.scores[d]}
	}
	st.best = best
	return hits
}

// poolFactor times the limit is how many of the best entries the variety
// of the result is chosen from.
const poolFactor = 3
