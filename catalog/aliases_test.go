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
		"password":   "server_passwd", // the parameter says it too, the alias counts as the name
		"srv passwd": "server_passwd",
		"str rm":     "stream_rm",
	} {
		if hits := x.Search(query, 5); len(hits) == 0 || hits[0].Name != want {
			t.Errorf("Search(%q) = %v, want %s first", query, names(hits), want)
		}
	}
}

func TestAnAliasTheNameAlreadySaysCountsNothingMore(t *testing.T) {
	plain := slices.Clone(withAliases)
	plain[2].Aliases = map[string][]string{"stream": {"str", "s"}}
	again := slices.Clone(withAliases)
	again[2].Aliases = map[string][]string{"rm": {"rm"}, "stream": {"str", "s", "stream"}} // the name's own words
	got, want := New(again).Search("rm the stream", 1), New(plain).Search("rm the stream", 1)
	if len(got) != 1 || len(want) != 1 || got[0] != want[0] {
		t.Errorf("with the name's own words as aliases: %v, without: %v; want the same", got, want)
	}
}

func TestOneLetterAliasesAreNotWords(t *testing.T) {
	if hits := New(withAliases).Search("s", 5); len(hits) != 0 {
		t.Errorf("Search(s) = %v, want nothing: s is only a keystroke-saving alias of stream", names(hits))
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
