package catalog

import (
	"slices"
	"testing"
)

var withAliases = []Entry{
	{Name: "server_passwd", Title: "server passwd", Description: "Creates encrypted secrets for the server configuration",
		Aliases: map[string][]string{"passwd": {"mkpasswd", "password"}, "server": {"srv"}}},
	{Name: "user_add", Title: "user add", Description: "Adds a user to the account", Params: []string{"password"}},
	{Name: "stream_rm", Title: "stream rm", Description: "Removes a stream",
		Aliases: map[string][]string{"rm": {"delete", "del"}, "stream": {"str", "s"}}, Examples: []string{"Evict a stream nobody reads"}},
	{Name: "stream_ls", Title: "stream ls", Description: "List all known streams"},
}

func TestSearchFindsAnEntryByItsAliasesAsByItsName(t *testing.T) {
	x := New(withAliases)
	for query, want := range map[string]string{
		"make a password": "server_passwd", // the parameter says it too, the alias counts as the name
		"srv passwd":      "server_passwd",
		"str rm":          "stream_rm",
	} {
		if hits := x.Search(query, 5); len(hits) == 0 || hits[0].Name != want {
			t.Errorf("Search(%q) = %v, want %s first", query, names(hits), want)
		}
	}
}

func TestAnAliasTheNameAlreadySaysCountsNothingMore(t *testing.T) {
	plain := slices.Clone(withAliases)
	plain[2].Aliases = map[string][]string{"stream": {"str", "s"}} // rm's aliases are rm in other words
	got, want := New(withAliases).Search("delete the stream", 1), New(plain).Search("delete the stream", 1)
	if len(got) != 1 || len(want) != 1 || got[0] != want[0] {
		t.Errorf("with delete and del as aliases of rm: %v, without: %v; want the same", got, want)
	}
}

func TestOneLetterAliasesAreNotWords(t *testing.T) {
	if hits := New(withAliases).Search("s", 5); len(hits) != 0 {
		t.Errorf("Search(s) = %v, want nothing: s is only a keystroke-saving alias of stream", names(hits))
	}
}

// An alias says the word it stands for, once: a query that says both
// the word and its alias has said the word, not more.
func TestAnAliasCoversTheNameWordItStandsForOnlyWhenTheQueryDoesNotSayIt(t *testing.T) {
	x := New(withAliases)
	cover := func(query string) float64 {
		st := &searchState{scores: make([]float64, x.Len()), covered: make([]float64, x.Len())}
		x.parse(query, st)
		var sum float64
		for _, q := range st.query {
			for _, p := range x.postings[q.term] {
				if p.stands != 0 && x.entries[p.doc].Name == "stream_rm" {
					sum += x.aliasCover(st, p.stands-1)
				}
			}
		}
		return sum
	}
	if c := cover("str"); c <= 0 {
		t.Errorf("str covers %v of stream rm, want the idf of stream", c)
	}
	if c := cover("str stream"); c != 0 {
		t.Errorf("str covers %v of stream rm when the query says stream too, want 0", c)
	}
}

func TestSearchFindsAnEntryByTheNotesOfItsExamples(t *testing.T) {
	if hits := New(withAliases).Search("evict", 5); !slices.Equal(names(hits), []string{"stream_rm"}) {
		t.Errorf("Search(evict) = %v, want stream_rm, whose example says it", names(hits))
	}
}

func TestEntryReturnsAliasesAndExamplesSharingNothing(t *testing.T) {
	x := New(withAliases)
	e, _ := x.Entry("stream_rm")
	e.Aliases["rm"][0], e.Examples[0] = "changed", "changed"
	again, _ := x.Entry("stream_rm")
	if again.Aliases["rm"][0] != "delete" || again.Examples[0] != "Evict a stream nobody reads" {
		t.Errorf("Entry shares its aliases or examples: %+v", again)
	}
}
