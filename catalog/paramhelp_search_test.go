package catalog

import (
	"slices"
	"testing"
)

func TestSearchFindsAToolByItsFlagsHelp(t *testing.T) {
	x := New([]Entry{
		{Name: "consumer_ls", Title: "consumer ls", Description: "List known consumers", Params: []string{"waiting"}, ParamHelp: []string{"Only show consumers with pending acknowledgements"}},
		{Name: "consumer_info", Title: "consumer info", Description: "Consumer information", Params: []string{"consumer"}},
		{Name: "consumer_add", Title: "consumer add", Description: "Creates a new consumer", Params: []string{"consumer"}},
	})
	wantFirst(t, x, "pending acknowledgements", 1, "consumer_ls")
}

func TestSearchCountsAWordOfAFlagsHelpLessThanTheSameWordOfASummary(t *testing.T) {
	x := New([]Entry{
		{Name: "stream_edit", Title: "stream edit", Description: "Edits a stream", ParamHelp: []string{"Seal the stream so it cannot be changed"}},
		{Name: "stream_seal", Title: "stream seal", Description: "Seals a stream, making it read only"},
	})
	if hits := x.Search("seal ORDERS", 2); len(hits) != 2 || hits[0].Name != "stream_seal" {
		t.Errorf("got %v, want stream_seal then stream_edit", names(hits))
	}
}

// A word only a flag's help says is still read as one the tools do not
// say: it does not keep the query from its near words.
func TestSearchReadsAWordOnlyFlagsHelpSaysAsOneTheToolsDoNotSay(t *testing.T) {
	x := New([]Entry{
		{Name: "latency", Title: "latency", Description: "Perform latency tests between two servers"},
		{Name: "server_ping", Title: "server ping", Description: "Ping all servers", ParamHelp: []string{"Sort by the slowest first"}},
	})
	hits := x.Search("find the slowest servers", 2)
	if len(hits) == 0 || hits[0].Name != "latency" {
		t.Errorf("got %v, want latency first", names(hits))
	}
	if !slices.ContainsFunc(hits, func(h Hit) bool { return h.Name == "server_ping" }) {
		t.Errorf("got %v, want server_ping too, for its flag's help", names(hits))
	}
}
