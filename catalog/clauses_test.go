package catalog

import (
	"slices"
	"testing"
)

// fleet is a set where the parts of a request that say why, which one or
// how much decide between tools that share its other words.
var fleet = []Entry{
	{Name: "user_edit", Title: "user edit", Description: "Edits a user"},
	{Name: "subscribe", Title: "subscribe", Description: "Generic subscription client"},
	{Name: "export_add", Title: "export add", Description: "Adds a new export"},
	{Name: "export_edit", Title: "export edit", Description: "Edits an export"},
	{Name: "export_info", Title: "export info", Description: "Export information"},
	{Name: "keys_add", Title: "keys add", Description: "Adds a signing key"},
	{Name: "keys_ls", Title: "keys ls", Description: "List signing keys"},
	{Name: "kv_history", Title: "kv history", Description: "Shows the full history of a key"},
	{Name: "gateway_ls", Title: "gateway ls", Description: "List the gateways of a cluster"},
	{Name: "bench_pub", Title: "bench pub", Description: "Publish 500 messages at a time"},
	{Name: "stream_add", Title: "stream add", Description: "Create a new stream"},
	{Name: "kv_add", Title: "kv add", Description: "Create a new bucket"},
}

func TestSearchWeighsTheWordsThatSayWhyLess(t *testing.T) {
	x := New(fleet)
	wantFirst(t, x, "restrict the export so only bob can subscribe", 3, "export_edit")
}

func TestSearchReadsMakingAThingThatExistsSomethingAsChangingIt(t *testing.T) {
	x := New(fleet)
	wantFirst(t, x, "make the orders export private", 3, "export_edit")
}

func TestSearchReadsAWordNoToolSaysLinkedToAnActionAsThatAction(t *testing.T) {
	// "rotate" reaches add: the request is to do something, so the
	// list of the keys it names is not favoured as for a request to
	// see.
	x := New(fleet)
	wantFirst(t, x, "rotate keys", 3, "keys_add")
}

func TestSearchLooksForNoNumberNorNumberedName(t *testing.T) {
	x := New(fleet)
	if hits := x.Search("500", 5); len(hits) != 0 {
		t.Errorf("a number alone found %v, want nothing", names(hits))
	}
	if hits := x.Search("gateway-3", 5); len(hits) != 0 {
		t.Errorf("a numbered name alone found %v, want nothing", names(hits))
	}
	wantFirst(t, x, "history of key motd on gateway-3", 3, "kv_history")
}

func TestSearchReadsOtherBrokersWords(t *testing.T) {
	// A topic is a subject, and in a log broker the stream that keeps
	// its messages.
	x := New(fleet)
	wantFirst(t, x, "create a topic", 3, "stream_add")
}

func TestOrderedKeepsItsOwnMeaningAndCaseIsFiller(t *testing.T) {
	if a, b := analyse(ranked, "ordered", false), analyse(ranked, "orders", false); slices.Equal(a, b) {
		t.Errorf("ordered and orders are both %v, want them apart", a)
	}
	if got := analyse(ranked, "our dead letter case", false); slices.Contains(got, "cas") {
		t.Errorf("case reads as cas: %v", got)
	}
}
