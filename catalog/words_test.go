package catalog

import (
	"slices"
	"testing"
)

func analyse(a analyzer, text string, identifier bool) []string {
	var out []string
	var sc scratch
	a.each(text, identifier, &sc, func(w []byte, class string) {
		if class != "" {
			out = append(out, class)
			return
		}
		out = append(out, string(w))
	})
	return out
}

func TestAnalysisSplitsNamesStemsAndMapsVocabulary(t *testing.T) {
	tests := []struct {
		text       string
		identifier bool
		want       []string
	}{
		{"stream_rm", true, []string{"stream", "remov"}},
		{"server_cluster_step-down", true, []string{"server", "cluster", "step", "down", "elect"}},
		{"listUsers", true, []string{"list", "user"}},
		{"JSONFile", true, []string{"json", "fil"}},
		{"JetStream", false, []string{"jetstream"}},
		{"Deletes the entries of a bucket", false, []string{"remov", "entry", "bucket"}},
		{"Compute round-trip time", false, []string{"comput", "round", "trip", "roundtrip", "tim"}},
		{"Show Operator information", false, []string{"show", "operator", "info"}},
		{"the status is pending", false, []string{"info", "pend"}},
		{"Größe ändern", false, []string{"größe", "ändern"}},
	}
	for _, tc := range tests {
		if got := analyse(ranked, tc.text, tc.identifier); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestPlainAnalysisOnlyLowercasesAndSplits(t *testing.T) {
	got := analyse(analyzer{}, "Removes the step-down listUsers", true)
	want := []string{"removes", "the", "step", "down", "listusers"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestStemMeetsTheFormsOfAWordAndLeavesCLIWordsAlone(t *testing.T) {
	same := [][]string{
		{"delete", "deletes", "deleted", "deleting"},
		{"connect", "connected", "connection", "connections"},
		{"entry", "entries"},
		{"run", "running"},
		{"watch", "watches"},
		{"message", "messages"},
	}
	for _, forms := range same {
		want := string(stem([]byte(forms[0])))
		for _, f := range forms[1:] {
			if got := string(stem([]byte(f))); got != want {
				t.Errorf("stem(%q) = %q, want %q like %q", f, got, want, forms[0])
			}
		}
	}
	for _, w := range []string{"status", "bus", "ls", "rm", "ping", "address", "string", "analysis", "kv", "10059"} {
		if got := string(stem([]byte(w))); got != w {
			t.Errorf("stem(%q) = %q, want it unchanged", w, got)
		}
	}
}
