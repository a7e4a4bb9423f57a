package catalog

import (
	"slices"
	"testing"
)

func TestClosestSuggestsTyposFirstThenNamesThatShareWords(t *testing.T) {
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
