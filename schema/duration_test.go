package schema

import (
	"regexp"
	"strings"
	"testing"
)

// The advertised duration pattern matches exactly what fisk's pattern
// matches, less the strings that use "µs".
func TestDurationPatternIsFisksWithoutMicroSign(t *testing.T) {
	fisks, ours := regexp.MustCompile(fiskDurationPattern), regexp.MustCompile(durationPattern)
	units := []string{"ns", "us", "µs", "ms", "s", "m", "h", "", "x", "sm", "mm", "nss", "µ", "u"}
	numbers := []string{"0", "1", "15", "1.5", ".5", "1.", "-2", "+3", "--1", "0.25"}
	var n int
	check := func(s string) {
		n++
		want := fisks.MatchString(s) && !strings.Contains(s, "µ")
		if got := ours.MatchString(s); got != want {
			t.Errorf("%q: advertised pattern matches = %v, fisk's (without µs) = %v", s, got, want)
		}
	}
	for _, a := range numbers {
		check(a)
		for _, u := range units {
			check(a + u)
			for _, b := range []string{"30", "2.5", "-1"} {
				for _, v := range units {
					check(a + u + b + v)
				}
			}
		}
	}
	for _, s := range []string{"", "0s", "1h30m", "1h30m15s500ms", " 1s", "1s ", "1S", "1d"} {
		check(s)
	}
	if n < 1000 {
		t.Fatalf("only %d strings checked", n)
	}
}
