package catalog

import "testing"

func TestATagMostToolsCarryDoesNotMakeItsWordCommon(t *testing.T) {
	var entries []Entry
	for _, name := range []string{"stream_ls", "stream_rm", "stream_add", "stream_info", "consumer_ls", "consumer_rm"} {
		entries = append(entries, Entry{Name: name, Title: name, Tags: []string{"scope:user"}})
	}
	entries = append(entries, Entry{Name: "user_add", Title: "user add", Description: "Adds a user", Tags: []string{"scope:user"}})
	x := New(entries)
	hits := x.Search("add a user", 2)
	if len(hits) < 2 || hits[0].Name != "user_add" || hits[0].Score < 1.4*hits[1].Score {
		t.Errorf("got %v, want user_add first by far: a tag says nothing of what a tool does", hits)
	}
}
