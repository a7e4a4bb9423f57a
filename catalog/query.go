package catalog

import "strings"

// queryTerm is one term a query is ranked by, with the weight it counts.
type queryTerm struct {
	term   int32
	weight float32
}

// purposeWeight scales the modifier weight for the words of a request
// that say why (see purposes).
const purposeWeight = 0.6

// parse fills st.query with the distinct terms of query the index holds,
// each with the highest weight it is reached by, and the terms related to
// them (see related).
//
// The words after the first preposition that follows a matched word are a
// modifier and weigh less: in "add a user to the APP account" the thing to
// add is the user, and the account only says where. The words after so or
// because say why ("restrict the export so only bob can subscribe") and
// weigh less still.
func (x *Index) parse(query string, st *searchState) {
	weight, head := float32(1), true
	splitWords(query, &st.sc, func(w []byte) {
		if x.modifier < 1 && len(st.query) > 0 {
			if head && prepositions[string(w)] {
				head, weight = false, x.modifier
			}
			if weight > x.modifier*purposeWeight && purposes[string(w)] {
				head, weight = false, x.modifier*purposeWeight
			}
		}
		t, ok := x.terms[string(w)]
		if !ok {
			return
		}
		x.want(st, t, weight)
		for _, r := range x.related[t] {
			x.want(st, r.term, weight*r.weight)
		}
	})
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

// prepositions open the part of a request that says where or with what,
// rather than what.
var prepositions = words(`to from in on of for with by at under into onto
	off over across within inside between through per`)

// purposes open the part of a request that says why ("restrict the user
// so it can only subscribe", "revoke the key because it leaked"): like a
// preposition, they end the part that says what to do.
var purposes = words(`so because`)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
