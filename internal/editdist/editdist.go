// Package editdist measures how far apart two short strings are, for the
// "did you mean" suggestions fisk-mcp makes: a configuration key spelt
// wrong, a tool name the model mistyped.
//
// The distance is the optimal string alignment distance over bytes:
// insertions, deletions, substitutions and swaps of two adjacent bytes each
// cost one, so the commonest typo, two letters swapped, is as close as one
// wrong letter. It works on bytes, not runes, because the names it compares
// are ASCII (tool names match ^[A-Za-z0-9_-]+$, configuration keys are the
// flags' names); for other text a multi-byte rune counts as several edits,
// which only makes a suggestion less likely, never wrong.
package editdist

// Distance is the edit distance of a and b, or budget+1 as soon as it is
// known to exceed budget: a caller looking for close names stops paying for
// far ones. A negative budget means no bound.
func Distance(a, b string, budget int) int {
	if budget < 0 {
		budget = max(len(a), len(b))
	}
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
