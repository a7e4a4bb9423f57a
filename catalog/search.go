package catalog

import (
	"slices"
	"strings"
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

// asks follows the first words of a query to tell a question ("which
// streams...", "is the server healthy") from a request to act ("how do I
// delete...", "remove..."): st.question ends 1 for a question, -1 for a
// request and 0 when the first words do not say.
func (st *searchState) asks(w []byte, position int) {
	switch {
	case position == 1:
		st.question = 0
		if questionWords[string(w)] {
			st.question = 1
		}
	case position == 2 && st.question == 1 && requestWords[string(w)]:
		st.question = -1
	}
}

// plural reports whether a lowercased word looks like an English plural
// (streams, entries; not status, address or analysis).
func plural(w []byte) bool {
	return len(w) > 3 && hasSuffix(w, "s") && !hasSuffix(w, "ss") && !hasSuffix(w, "us") && !hasSuffix(w, "is") && !uncountable[string(w)]
}

// questionMark reports whether query ends in a question mark.
func questionMark(query string) bool {
	q := strings.TrimRight(query, " \t\n")
	return strings.HasSuffix(q, "?")
}

type queryTerm struct {
	term   int32
	weight float32
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
			st.thing[p.doc] = st.thing[p.doc] || thing
			st.said[p.doc] |= 1 << uint(i)
			if st.scores[p.doc] == 0 {
				st.touched = append(st.touched, p.doc)
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
	hits := x.top(st, limit)
	for _, d := range st.touched {
		st.scores[d], st.covered[d], st.thing[d], st.said[d] = 0, 0, false, 0
	}
	st.touched, st.query = st.touched[:0], st.query[:0]
	return hits
}

// parse fills st.query with the distinct terms of query, each with the
// highest weight it is reached by.
//
// The words after the first preposition that follows a matched word are a
// modifier and weigh less: in "add a user to the APP account" the thing to
// add is the user, and the account only says where.
//
// A query that names no action and holds no word the tools do not know
// ("which servers are in the cluster") asks what there is, and is also
// ranked by list (see actions). An unknown word may be the action said in
// other words ("rewind a consumer"), so it turns the rule off.
//
// A word in capitals longer than an acronym (ORDERS, in a query not all in
// capitals) is taken for a name the user gave a stream or a bucket, not a
// word of the CLI: it matches only itself, unstemmed, so that "the ORDERS
// stream" does not rank a tool about ordered consumers first.
func (x *Index) parse(query string, st *searchState) {
	st.prev = st.prev[:0]
	names := x.an.vocabulary && !capitals(query)
	action, unknown, head, quantity := false, false, true, false
	weight := float32(1)
	position, prevStart := 0, 0
	st.read, st.number = false, 0
	det, phrase, verbDone, called := false, false, false, false
	st.nouns, st.verb = st.nouns[:0], st.verb[:0]
	splitWords(query, false, x.an.compounds, &st.sc, func(w []byte, caps bool) {
		position++
		// An action word after a determiner is a thing ("show the
		// exports", "what is in this backup"), not what to do.
		noun := det
		det = x.an.vocabulary && determiners[string(w)]
		if x.an.vocabulary {
			st.asks(w, position)
		}
		named := called
		called = x.an.vocabulary && naming[string(w)]
		if called {
			return
		}
		if named {
			// A name the user chose (a bucket called config) says
			// nothing of the tool.
			st.prev = st.prev[:0]
			return
		}
		if names && caps && len(w) > maxAcronym {
			st.prev = st.prev[:0]
			if t, ok := x.terms[string(w)]; ok {
				x.want(st, t, weight)
			}
			return
		}
		if x.an.vocabulary && definite[string(w)] && weakCreates[string(st.prev)] {
			// "Make a stream" creates one; "make the operator the
			// default" changes one that exists.
			st.query = st.query[:prevStart]
		}
		if x.an.compounds && len(st.prev) > 0 {
			st.joined = append(append(st.joined[:0], st.prev...), w...)
			if j, class, ok := x.an.word(st.joined); ok {
				if t, found := x.lookup(j, class); found && (class != "" || len(x.postings[t]) == 0) {
					// One thing said in two words (key-value, get
					// rid, tear down): the parts do not count on
					// their own.
					st.query = st.query[:prevStart]
					x.want(st, t, weight)
					action = action || x.actions[t] && !x.sees[t]
					for _, r := range x.related[t] {
						x.want(st, r.term, weight*r.weight)
					}
					st.prev = st.prev[:0]
					return
				} else if found {
					// Two words the tools also write as one
					// (signing key, signing-key): the parts still
					// count, the tools say them apart too.
					x.want(st, t, weight)
				}
			}
		}
		if x.an.compounds && len(st.verb) > 0 && particles[string(w)] {
			st.joined = append(append(st.joined[:0], st.verb...), w...)
			if j, class, ok := x.an.word(st.joined); ok {
				if t, found := x.lookup(j, class); found && (class != "" || len(x.postings[t]) == 0) {
					// A verb and its particle said apart ("put the
					// streams back", "take a stream off"): the verb
					// alone is not what the user means.
					st.query = slices.Delete(st.query, st.verbStart, st.verbEnd)
					if prevStart >= st.verbEnd {
						prevStart -= st.verbEnd - st.verbStart
					}
					x.want(st, t, 1)
					action = action || x.actions[t] && !x.sees[t]
					for _, r := range x.related[t] {
						x.want(st, r.term, r.weight)
					}
					st.verb = st.verb[:0]
					st.prev = append(st.prev[:0], w...)
					prevStart = len(st.query)
					return
				}
			}
		}
		st.prev = append(st.prev[:0], w...)
		prevStart = len(st.query)
		if head && x.modifier < 1 && len(st.query) > 0 && prepositions[string(w)] {
			head, weight = false, x.modifier
		}
		many, participle := plural(w), hasSuffix(w, "ed")
		first := x.an.compounds && len(st.verb) == 0 && !verbDone
		if first {
			st.verb = append(st.verb[:0], w...)
		}
		w, class, ok := x.an.word(w)
		if !ok {
			if first {
				st.verb = st.verb[:0]
			}
			phrase = false
			return
		}
		if first {
			verbDone = true
			st.verbStart = len(st.query)
			defer func() { st.verbEnd = len(st.query) }()
		}
		t, found := x.lookup(w, class)
		if !found {
			phrase = false
			// A word matched only by its beginning is still one the
			// tools do not say: it may be the action in other words.
			x.near(st, w, weight)
			unknown = true
			return
		}
		if noun && participle && x.actions[t] {
			// "a paused consumer": the action describes the thing,
			// it is not what to do with it.
			x.want(st, t, weight*participleWeight)
		} else {
			x.want(st, t, weight)
		}
		act := x.actions[t] && !noun
		if x.actions[t] && noun {
			st.nouns = append(st.nouns, t)
		}
		action = action || act && !x.sees[t]
		quantity = quantity || defaultVocab.quantities[class]
		switch {
		case act || defaultVocab.quantities[class]:
			phrase = false
		case st.number == 0:
			st.number, phrase = 1, true
			if many {
				st.number = 2
			}
		case phrase && many:
			// The first thing named sets the number; in a run of
			// words the last is the head (object store buckets).
			st.number = 2
		}
		for _, r := range x.related[t] {
			x.want(st, r.term, weight*r.weight)
		}
	})
	if st.question == 0 && questionMark(query) {
		st.question = 1
	}
	if quantity {
		// How many messages, how big: one thing's description answers,
		// whatever the number of the thing counted.
		st.number = 1
	}
	st.read = x.an.vocabulary && (!action && !unknown || st.question > 0) && len(st.query) > 0
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

// maxAcronym is the longest word in capitals still read as a word of the
// CLI (NATS, KV, TLS, RAFT) rather than as a name.
const maxAcronym = 4

// near matches a word the tools do not hold to the terms it begins or
// that begin it ("configured" to config, "lead" to leader), at nearWeight:
// the stemmer is small on purpose, and this catches the forms it misses.
// Short words are left out, where a shared beginning means nothing.
func (x *Index) near(st *searchState, w []byte, weight float32) {
	if !x.an.vocabulary || len(w) < minNear {
		return
	}
	for _, nt := range x.sorted {
		if len(nt.text) < minNear {
			continue
		}
		if hasPrefix(w, nt.text) || len(w) < len(nt.text) && nt.text[:len(w)] == string(w) {
			x.want(st, nt.term, weight*nearWeight)
		}
	}
}

// participleWeight is the weight of an action said as a participle of a
// thing ("a paused consumer").
const participleWeight = 0.5

const (
	minNear    = 4
	nearWeight = 0.6
)

func hasPrefix(w []byte, p string) bool {
	return len(w) >= len(p) && string(w[:len(p)]) == p
}

func (x *Index) lookup(w []byte, class string) (int32, bool) {
	if class != "" {
		t, ok := x.terms[class]
		return t, ok
	}
	t, ok := x.terms[string(w)]
	return t, ok
}

func (x *Index) want(st *searchState, t int32, weight float32) {
	for i := range st.query {
		if st.query[i].term == t {
			st.query[i].weight = max(st.query[i].weight, weight)
			return
		}
	}
	if len(st.query) < maxQueryTerms {
		st.query = append(st.query, queryTerm{t, weight})
	}
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
