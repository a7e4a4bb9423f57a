package catalog

import "testing"

// streaming is a set where "stream" names things and, said as a verb,
// the watching of them.
var streaming = []Entry{
	{Name: "stream_edit", Title: "stream edit", Description: "Edit a stream"},
	{Name: "stream_subjects", Title: "stream subjects", Description: "List the subjects of a stream"},
	{Name: "stream_info", Title: "stream info", Description: "Stream information"},
	{Name: "kv_watch", Title: "kv watch", Description: "Watch a bucket for updated keys"},
}

func TestSearchReadsARequestsFirstThingAsTheActionItMeansBeforeADeterminerOrAPlural(t *testing.T) {
	x := New(streaming)
	wantFirst(t, x, "stream changes of my bucket to my terminal", 3, "kv_watch")
	wantFirst(t, x, "stream the bucket's keys to my terminal", 3, "kv_watch")
}

func TestSearchReadsAThingAsOneWhenATitleSaysItWithTheNextWordOrNothingMakesItAnAction(t *testing.T) {
	x := New(streaming)
	wantFirst(t, x, "stream subjects of ORDERS", 3, "stream_subjects")
	wantFirst(t, x, "stream info for ORDERS", 3, "stream_info")
	wantFirst(t, x, "which stream changes are allowed", 3, "stream_edit")
}
