package catalog

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
	query   []queryTerm
	scores  []float64
	touched []int32
	best    []int32
}

// Search returns up to limit entries that match query, best first; limit
// <= 0 means DefaultLimit. An entry that matches nothing the query says
// is not a hit, so an empty or unmatched query returns nothing. Equal
// scores are ordered by name, so the same query on the same set always
// gives the same list.
//
// A query word matches a tool's word when the two are the same word,
// lowercased; a word related to it (remove for revoke) matches at a lower
// weight. The result is a ranking, not text: what is shown to a model is
// built from the entries by the caller.
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
		st = &searchState{scores: make([]float64, len(x.entries))}
	}
	defer x.states.Put(st)

	x.parse(query, st)
	for _, q := range st.query {
		for _, p := range x.postings[q.term] {
			if st.scores[p.doc] == 0 {
				st.touched = append(st.touched, p.doc)
			}
			st.scores[p.doc] += float64(q.weight) * float64(p.impact)
		}
	}
	hits := x.top(st, limit)
	for _, d := range st.touched {
		st.scores[d] = 0
	}
	st.touched, st.query = st.touched[:0], st.query[:0]
	return hits
}

// top selects the limit best of the touched entries: higher score first,
// then lower position, which is name order.
func (x *Index) top(st *searchState, limit int) []Hit {
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
		case len(best) < limit:
			best = append(best, d)
		case better(d, best[limit-1]):
			best[limit-1] = d
		default:
			continue
		}
		for i := len(best) - 1; i > 0 && better(best[i], best[i-1]); i-- {
			best[i], best[i-1] = best[i-1], best[i]
		}
	}
	hits := make([]Hit, len(best))
	for i, d := range best {
		hits[i] = Hit{Name: x.entries[d].Name, Score: st.scores[d]}
	}
	st.best = best
	return hits
}
