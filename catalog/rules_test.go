package catalog

import "testing"

// fleet is a set where a request's words that say where or why, or a
// word no tool says, decide between tools that share its other words.
var fleet = []Entry{
	{Name: "user_edit", Title: "user edit", Description: "Edit a user"},
	{Name: "subscribe", Title: "subscribe", Description: "Generic subscription client"},
	{Name: "export_add", Title: "export add", Description: "Add a new export"},
	{Name: "export_edit", Title: "export edit", Description: "Edit an export"},
	{Name: "export_info", Title: "export info", Description: "Export information"},
	{Name: "key_remove", Title: "key remove", Description: "Remove a key"},
	{Name: "key_list", Title: "key list", Description: "List a key"},
}

func TestSearchWeighsTheWordsThatSayWhyLess(t *testing.T) {
	x := New(fleet)
	wantFirst(t, x, "restrict the export so only bob can subscribe", 3, "export_edit")
	plain := build(fleet, plainWeights)
	if hits := plain.Search("restrict the export so only bob can subscribe", 1); len(hits) == 1 && hits[0].Name == "export_edit" {
		t.Errorf("plain BM25 ranks export_edit first too: the test says nothing of the clause")
	}
}

func TestSearchReachesTheToolWordsAUsersWordIsRelatedTo(t *testing.T) {
	x := New(fleet)
	// No tool says revoke; it reaches remove.
	wantFirst(t, x, "revoke a key", 2, "key_remove")
}
