package catalog

import (
	"slices"
	"strings"
)

// Closest returns up to limit names of the index that a mistyped or guessed
// name most likely meant, best first, for a "did you mean" answer: first
// the names within a few edits of it (strem_ls, stream_lst), nearest
// first, then the best hits of a search for its words (stream_delete finds
// stream_rm). A name in the index is its own closest. limit <= 0 means 3.
func (x *Index) Closest(name string, limit int) []string {
	if limit <= 0 {
		limit = 3
	}
	type near struct {
		name string
		dist int
	}
	var typos []near
	budget := max(1, min(3, len(name)/4))
	for _, e := range x.entries {
		if d := distance(name, e.Name, budget); d <= budget {
			typos = append(typos, near{e.Name, d})
		}
	}
	slices.SortStableFunc(typos, func(a, b near) int { return a.dist - b.dist }) // entries are in name order
	var out []string
	for _, t := range typos {
		if len(out) == limit {
			return out
		}
		out = append(out, t.name)
	}
	words := strings.NewReplacer("_", " ", "-", " ").Replace(name)
	for _, h := range x.Search(words, limit) {
		if len(out) == limit {
			break
		}
		if !slices.Contains(out, h.Name) {
			out = append(out, h.Name)
		}
	}
	return out
}

// distance is the edit distance of a and b (insertions, deletions,
// substitutions and swaps of adjacent bytes), or budget+1 once it is
// known to exceed budget.
func distance(a, b string, budget int) int {
	if d := len(a) - len(b); d > budget || -d > budget {
		return budget + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			low = min(low, cur[j])
		}
		if low > budget {
			return budget + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
