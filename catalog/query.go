package catalog

import (
	"slices"
	"strings"
)

// queryTerm is one term a query is ranked by, with the weight it counts.
type queryTerm struct {
	term   int32
	weight float32
}

// maxAcronym is the longest word in capitals still read as a word of the
// CLI (NATS, KV, TLS, RAFT) rather than as a name.
const maxAcronym = 4

// participleWeight is the weight of an action said as a participle of a
// thing ("a paused consumer").
const participleWeight = 0.5

// purposeWeight scales the modifier weight for the words of a request
// that say why (see purposes).
const purposeWeight = 0.6

// makeWeight is the weight of changing, for a query that makes a thing
// that exists something ("make the export private").
const makeWeight = 0.5

// ceaseWeight is the weight of removing, for a query that asks to stop
// doing something.
const ceaseWeight = 0.5

// minNear is the shortest word near matches, nearWeight what such a match
// counts for (see Index.near).
const (
	minNear    = 4
	nearWeight = 0.6
)

// parse fills st.query with the distinct terms of query, each with the
// highest weight it is reached by, and tells whether the query asks to
// see something (st.read) and about how many things (st.number).
//
// The words after the first preposition that follows a matched word are a
// modifier and weigh less: in "add a user to the APP account" the thing to
// add is the user, and the account only says where.
//
// A query that names no action and holds no word the tools do not know
// ("which servers are in the cluster"), or that asks a question, asks
// what there is, and is also ranked by the read actions (see
// readActions). An unknown word may be the action said in other words
// ("rewind a consumer"), so outside a question it turns the rule off.
//
// A word in capitals longer than an acronym (ORDERS, in a query not all in
// capitals) is taken for a name the user gave a stream or a bucket, not a
// word of the CLI: it matches only itself, unstemmed, so that "the ORDERS
// stream" does not rank a tool about ordered consumers first. A word after
// "called" or "named" is such a name too, and is not looked for.
func (x *Index) parse(query string, st *searchState) {
	st.prev, st.nouns, st.verb, st.phrases, st.last = st.prev[:0], st.nouns[:0], st.verb[:0], st.phrases[:0], -1
	st.read, st.number = false, 0
	r := reader{x: x, st: st, names: x.an.vocabulary && rulesOff&offNames == 0 && !capitals(query), weight: 1, head: true, sense: -1}
	splitWords(query, false, x.an.compounds, x.an.vocabulary && rulesOff&offNames == 0, &st.sc, r.word)
	if st.question == 0 && questionMark(query) {
		st.question = 1
	}
	if r.quantity {
		// How many messages, how big: one thing's description answers,
		// whatever the number of the thing counted.
		st.number = 1
	}
	st.read = x.an.vocabulary && (!r.action && !r.unknown || st.question > 0) && len(st.query) > 0
}

// reader is the state of parse between the words of one query.
type reader struct {
	x     *Index
	st    *searchState
	names bool // a word in capitals is a name (see parse)
	// weight is what the next word counts for: 1 in the head of the
	// query, the modifier weight after its first preposition.
	weight    float32
	position  int // of the current word, from 1
	prevStart int // where the previous word's terms start in st.query
	action    bool
	unknown   bool // a word the tools do not say
	head      bool
	quantity  bool
	det       bool // the previous word is a determiner
	phrase    bool // the words since the first thing named are things
	verbDone  bool // the first word that is not a stop word was seen
	called    bool // the previous word announces a name
	ceased    bool // the previous word is stop (see ceasing)
	adding    bool // the previous word is an add (see number)
	// sense is the term of the request's first word when it is a thing
	// that is also said as an action (see verbSenses), until the next
	// word tells which it is; -1 otherwise.
	sense int32
}

// word reads one lowercased word of the query.
func (r *reader) word(w []byte, caps bool) {
	x, st := r.x, r.st
	r.position++
	// An action word after a determiner is a thing ("show the
	// exports", "what is in this backup"), not what to do.
	noun := r.det
	r.det = x.an.vocabulary && rulesOff&offGrammar == 0 && determiners[string(w)]
	if x.an.vocabulary {
		st.asks(w, r.position)
	}
	if r.sense >= 0 && rulesOff&offGrammar == 0 {
		r.senseOf(w, caps)
	}
	named := r.called
	r.called = x.an.vocabulary && rulesOff&offNames == 0 && naming[string(w)]
	if rulesOff&offGrammar == 0 && r.ceased && hasSuffix(w, "ing") && x.undo >= 0 && !stopWords[string(w)] {
		// "stop sharing the service": to stop doing something is to
		// undo it, and the thing done is what to remove.
		x.want(st, x.undo, r.weight*ceaseWeight)
		noun = true
	}
	r.ceased = x.an.vocabulary && ceasing[string(w)]
	if rulesOff&offGrammar == 0 && r.adding && number(w) {
		// "add 5 to the counter" is arithmetic: the add gives way to
		// an increment.
		st.query = st.query[:r.prevStart]
		x.want(st, x.plus, r.weight)
	}
	r.adding = false
	switch {
	case r.called:
		return
	case named:
		st.prev = st.prev[:0]
		return
	case r.names && caps && len(w) > maxAcronym:
		st.prev = st.prev[:0]
		if t, ok := x.terms[string(w)]; ok && !x.helpOnly[t] {
			x.want(st, t, r.weight)
		}
		return
	case x.an.vocabulary && rulesOff&offNames == 0 && digits(w):
		// "cap it at 500", "fw-2.3.bin", "building 7": a number is
		// an amount or part of a name, never what a tool is about;
		// like a word the tools do not say, it keeps a request from
		// reading as one to see.
		st.prev, r.unknown = st.prev[:0], true
		return
	}
	if x.an.vocabulary && rulesOff&offGrammar == 0 && definite[string(w)] && weakCreates[string(st.prev)] {
		// "Make a stream" creates one; "make the operator the
		// default" changes one that exists.
		st.query = st.query[:r.prevStart]
		if x.edit >= 0 {
			x.want(st, x.edit, r.weight*makeWeight)
		}
	}
	if r.compound(w) || r.particle(w) {
		return
	}
	st.prev = append(st.prev[:0], w...)
	r.prevStart = len(st.query)
	if r.head && x.modifier < 1 && len(st.query) > 0 && prepositions[string(w)] {
		r.head, r.weight = false, x.modifier
	}
	if x.an.vocabulary && x.modifier < 1 && r.weight > x.modifier*purposeWeight && len(st.query) > 0 && purposes[string(w)] {
		r.head, r.weight = false, x.modifier*purposeWeight
	}
	r.term(w, noun)
}

// compound reads w with the previous word as one, when the two are one
// word to the vocabulary (key-value, get rid, tear down): then the parts
// do not count on their own, and compound reports true. Two words the
// tools also write as one (signing key, signing-key) count both ways.
func (r *reader) compound(w []byte) bool {
	x, st := r.x, r.st
	if !x.an.compounds || len(st.prev) == 0 || clitics[string(w)] {
		// What English contracts onto a word ("bob's", "I'd",
		// "don't") makes no compound with it.
		return false
	}
	t, vocabulary, found := r.joined(st.prev, w)
	switch {
	case vocabulary:
		st.query = st.query[:r.prevStart]
		r.link(t, r.weight)
		st.prev = st.prev[:0]
		return true
	case found:
		x.want(st, t, r.weight)
	}
	return false
}

// particle reads w with the query's first word when the two are one word
// to the vocabulary but are said apart ("put the streams back", "take a
// stream off a server"): the verb alone is not what the user means, and
// its terms give way.
func (r *reader) particle(w []byte) bool {
	x, st := r.x, r.st
	if !x.an.compounds || rulesOff&offGrammar != 0 || len(st.verb) == 0 || !particles[string(w)] {
		return false
	}
	t, vocabulary, _ := r.joined(st.verb, w)
	if !vocabulary {
		return false
	}
	st.query = slices.Delete(st.query, st.verbStart, st.verbEnd)
	if r.prevStart >= st.verbEnd {
		r.prevStart -= st.verbEnd - st.verbStart
	}
	r.link(t, 1)
	st.verb = st.verb[:0]
	st.prev = append(st.prev[:0], w...)
	r.prevStart = len(st.query)
	return true
}

// joined looks a and b up as one word: found says it is a term, and
// vocabulary that it is one of the vocabulary's (a class, or a word only
// the vocabulary links).
//
// A verb said in another form ("logged in", "backing up", "taking a
// stream off") is looked up in its stem too, with and without the e the
// stemmer takes off (log in, back up, take off).
func (r *reader) joined(a, b []byte) (t int32, vocabulary, found bool) {
	st := r.st
	for form := range 3 {
		st.joined = append(st.joined[:0], a...)
		if form > 0 {
			if st.joined = stem(st.joined); len(st.joined) == len(a) {
				break
			}
			if form == 2 {
				st.joined = append(st.joined, 'e')
			}
		}
		st.joined = append(st.joined, b...)
		j, class, ok := r.x.an.word(st.joined)
		if !ok {
			continue
		}
		if t, found = r.x.lookup(j, class); found && !r.x.helpOnly[t] {
			return t, class != "" || !r.x.says[t], true
		}
	}
	return 0, false, false
}

// link adds t and the terms related to it to the query.
func (r *reader) link(t int32, weight float32) {
	x := r.x
	x.want(r.st, t, weight)
	r.action = r.action || x.actions[t] && !x.sees[t]
	for _, rel := range x.related[t] {
		x.want(r.st, rel.term, weight*rel.weight)
	}
}

// term reads a word that is neither a name nor part of a compound: its
// term, what it says of the request (an action, a thing and its number),
// and the terms related to it.
func (r *reader) term(w []byte, noun bool) {
	x, st := r.x, r.st
	many, participle := plural(w), hasSuffix(w, "ed")
	first := x.an.compounds && len(st.verb) == 0 && !r.verbDone
	if first {
		st.verb = append(st.verb[:0], w...)
	}
	w, class, ok := x.an.word(w)
	if !ok {
		if first {
			st.verb = st.verb[:0]
		}
		r.phrase = false
		return
	}
	if first {
		r.verbDone = true
		st.verbStart = len(st.query)
		defer func() { st.verbEnd = len(st.query) }()
	}
	t, found := x.lookup(w, class)
	if found && x.helpOnly[t] {
		x.want(st, t, r.weight)
		found = false
	}
	if !found {
		r.phrase = false
		// A word matched only by its beginning is still one the
		// tools do not say: it may be the action in other words.
		x.near(st, w, r.weight)
		r.unknown = true
		return
	}
	if st.last >= 0 && st.last != t && len(st.phrases) < maxQueryTerms {
		st.phrases = append(st.phrases, pairKey(st.last, t))
	}
	st.last = t
	if first && st.question <= 0 && len(x.senses[t]) > 0 {
		r.sense = t
	}
	if rulesOff&offGrammar == 0 && participle && x.actions[t] && !first && st.question > 0 {
		// "is the bucket sealed?", "which consumers are paused": what a
		// question says of a thing with a participle is its state.
		noun = true
	}
	if rulesOff&offGrammar == 0 && noun && participle && x.actions[t] {
		// "a paused consumer": the action describes the thing, it is
		// not what to do with it.
		x.want(st, t, r.weight*participleWeight)
	} else {
		x.want(st, t, r.weight)
	}
	r.adding = t == x.add && x.plus >= 0
	act := (x.actions[t] || rulesOff&offGrammar == 0 && x.linksAction(t)) && !noun
	if x.actions[t] && noun {
		st.nouns = append(st.nouns, t)
	}
	r.action = r.action || act && !x.sees[t]
	quantity := defaultVocab().quantities[class]
	r.quantity = r.quantity || quantity
	switch {
	case act || quantity:
		r.phrase = false
	case st.number == 0:
		st.number, r.phrase = 1, true
		if many {
			st.number = 2
		}
	case r.phrase && many:
		// The first thing named sets the number; in a run of words
		// the last is the head (object store buckets).
		st.number = 2
	}
	for _, rel := range x.related[t] {
		x.want(st, rel.term, r.weight*rel.weight)
	}
}

// linksAction reports whether t is a word no tool says that the
// vocabulary links to an action ("revoke" reaches remove, "rotate"
// generate): it is that action said in other words, so a request that
// says it asks to do something, not to see.
func (x *Index) linksAction(t int32) bool {
	return !x.says[t] && slices.ContainsFunc(x.related[t], func(r relation32) bool { return x.actions[r.term] && r.weight >= 0.5 })
}

// senseWeight is what the terms of a request's first word still count
// for when it is read as the action it also means (see senseOf).
const senseWeight = 0.5

// senseOf reads the word after a request's first word, which is a thing
// that is also said as an action ("stream the logs", "stream changes to
// my terminal"): a determiner or a plural after it make it the action,
// unless a title says the two words together (stream subjects is a
// command, so "stream subjects" names it) and the plural is not an
// action's (changes are things; "stream changes" is no stream edit). The action's terms are then
// what the query asks to do, and the thing's count less.
func (r *reader) senseOf(w []byte, caps bool) {
	x, st := r.x, r.st
	t := r.sense
	r.sense = -1
	if !determiners[string(w)] {
		if caps || !plural(w) {
			return
		}
		st.joined = append(st.joined[:0], w...)
		if n, class, ok := x.an.word(st.joined); ok {
			if nt, found := x.lookup(n, class); found && !x.actions[nt] && x.titled[pairKey(t, nt)] {
				return
			}
		}
	}
	for i := st.verbStart; i < st.verbEnd; i++ {
		st.query[i].weight *= senseWeight
	}
	for _, a := range x.senses[t] {
		r.link(a, 1)
	}
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
// (streams, entries; not status, address, analysis or stats).
func plural(w []byte) bool {
	return len(w) > 3 && hasSuffix(w, "s") && !hasSuffix(w, "ss") && !hasSuffix(w, "us") && !hasSuffix(w, "is") && !uncountable[string(w)]
}

// questionMark reports whether query ends in a question mark.
func questionMark(query string) bool {
	q := strings.TrimRight(query, " \t\n")
	return strings.HasSuffix(q, "?")
}

// near matches a word the tools do not hold to the terms it begins or
// that begin it ("configured" to config, "lead" to leader, "responder" to
// respond, a word of reply's class, "slowest" to slow, a word that reaches
// latency), at nearWeight: the stemmer is small
// on purpose, and this catches the forms it misses. Short words are left
// out, where a shared beginning means nothing.
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
			if !x.says[nt.term] {
				for _, rel := range x.related[nt.term] {
					x.want(st, rel.term, weight*nearWeight*rel.weight)
				}
			}
		}
	}
}

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

// want adds t to the query at weight, or raises its weight to it.
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

// digits reports whether a word is a number in digits.
func digits(w []byte) bool {
	for _, c := range w {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(w) > 0
}

// number reports whether a lowercased word is a number, in digits or a
// small one in words.
func number(w []byte) bool {
	return numberWords[string(w)] || digits(w)
}
