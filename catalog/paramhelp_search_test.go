package catalog

import "testing"

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
