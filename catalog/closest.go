package catalog

import (
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/internal/editdist"
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
		if d := editdist.Distance(name, e.Name, budget); d <= budget {
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
