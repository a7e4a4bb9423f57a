package catalog

import (
	"slices"
	"testing"
)

func TestClosestSuggestsTyposFirstThenNamesThatMeanTheSame(t *testing.T) {
	x := New(small)
	tests := []struct {
		name  string
		limit int
		want  []string
	}{
		{"strem_ls", 1, []string{"stream_ls"}},
		{"stream_lst", 1, []string{"stream_ls"}},
		{"stream_sl", 1, []string{"stream_ls"}},
		{"stream_ls", 1, []string{"stream_ls"}},
		{"stream_delete", 1, []string{"stream_rm"}},
		{"kv_create", 1, []string{"kv_add"}},
		{"zzz", 3, nil},
	}
	for _, tc := range tests {
		if got := x.Closest(tc.name, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("Closest(%q, %d) = %v, want %v", tc.name, tc.limit, got, tc.want)
		}
	}
	if got := x.Closest("stream_xx", 0); len(got) != 3 {
		t.Errorf("the default limit gave %v, want 3 names", got)
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
		if got := distance(tc.a, tc.b, tc.budget); got != tc.want {
			t.Errorf("distance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.budget, got, tc.want)
		}
	}
}
