package editdist

import "testing"

func TestDistanceCountsEachEditOnce(t *testing.T) {
	for _, c := range []struct {
		a, b   string
		budget int
		want   int
	}{
		{"", "", -1, 0},
		{"stream", "stream", -1, 0},
		{"stream", "streams", -1, 1}, // insertion
		{"streams", "stream", -1, 1}, // deletion
		{"stream", "strean", -1, 1},  // substitution
		{"stream", "stremа", -1, 3},  // a Cyrillic а is two bytes
		{"stream", "stearm", -1, 2},  // two swaps apart
		{"confirm_tag", "confirm_gat", -1, 2},
		{"timeout", "tiemout", -1, 1}, // adjacent swap
		{"ls", "list", -1, 2},
		{"a", "abcdef", 2, 3},       // longer than the budget allows
		{"kitten", "sitting", 1, 2}, // stops once past the budget
		{"kitten", "sitting", 3, 3},
	} {
		if got := Distance(c.a, c.b, c.budget); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", c.a, c.b, c.budget, got, c.want)
		}
	}
}

func TestDistanceIsSymmetric(t *testing.T) {
	words := []string{"", "ls", "list", "rm", "remove", "stream_info", "stream_ls", "tiemout", "timeout"}
	for _, a := range words {
		for _, b := range words {
			if x, y := Distance(a, b, -1), Distance(b, a, -1); x != y {
				t.Errorf("Distance(%q, %q) = %d but Distance(%q, %q) = %d", a, b, x, b, a, y)
			}
		}
	}
}

func TestDistanceCountsEditsAndStopsPastTheBudget(t *testing.T) {
	tests := []struct {
		a, b   string
		budget int
		want   int
	}{
		{"stream_ls", "stream_ls", 2, 0},
		{"strem_ls", "stream_ls", 2, 1},
		{"stream_sl", "stream_ls", 2, 1},
		{"kv_get", "kv_put", 2, 2},
		{"abc", "abcdefgh", 2, 3},
		{"", "ab", 2, 2},
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b, tc.budget); got != tc.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.budget, got, tc.want)
		}
	}
}
