package catalog

import (
	"slices"
	"testing"
)

func TestSplitWordsLowercasesAndSplitsAtAnythingButLettersAndDigits(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"stream_rm", []string{"stream", "rm"}},
		{"server_cluster_step-down", []string{"server", "cluster", "step", "down"}},
		{"JetStream listUsers", []string{"jetstream", "listusers"}},
		{"Deletes the entries of bucket-42", []string{"deletes", "the", "entries", "of", "bucket", "42"}},
		{"Größe ändern", []string{"größe", "ändern"}},
	}
	for _, tc := range tests {
		var got []string
		var sc scratch
		splitWords(tc.text, &sc, func(w []byte) { got = append(got, string(w)) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}
