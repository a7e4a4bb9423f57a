package ident

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// Valid accepts exactly what the pattern it stands for matches, at both
// bounds in use.
func TestValidMatchesItsPattern(t *testing.T) {
	ids := []string{"", "a", "Z9_-", strings.Repeat("f", 64), strings.Repeat("f", 65), strings.Repeat("f", 128), strings.Repeat("f", 129),
		"a b", "a/b", "a.b", "ü", "a\x00", "%2e", "-", "_"}
	r := rand.New(rand.NewPCG(1, 2))
	// Half from the ID alphabet alone, so that long valid IDs and those
	// one past the length are drawn as often as invalid ones.
	alphabets := []string{"azAZ09_-", "azAZ09_-./ \x00\xffü%"}
	for i := range 20_000 {
		alphabet := alphabets[i%2]
		var b strings.Builder
		for range r.IntN(140) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		ids = append(ids, b.String())
	}
	for _, max := range []int{64, 128} {
		pattern := regexp.MustCompile(fmt.Sprintf(`^[A-Za-z0-9_-]{1,%d}$`, max))
		for _, id := range ids {
			if got, want := Valid(id, max), pattern.MatchString(id); got != want {
				t.Errorf("Valid(%q, %d) = %v, the pattern says %v", id, max, got, want)
			}
		}
	}
}
