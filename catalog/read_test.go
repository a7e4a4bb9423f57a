package catalog

import "testing"

// cli is a set where a question, a phrase or a tool's whole name decides
// between tools that share most of their words.
var cli = []Entry{
	{Name: "kv_get", Title: "kv get", Description: "Gets a value for a key", Params: []string{"bucket", "key"}, ReadOnly: true},
	{Name: "kv_put", Title: "kv put", Description: "Puts a value into a key", Params: []string{"bucket", "key", "value"}},
	{Name: "kv_add", Title: "kv add", Description: "Adds a new KV Store Bucket", Params: []string{"bucket", "max-value-size"}},
	{Name: "kv_create", Title: "kv create", Description: "Puts a value into a key only if the key is new", Params: []string{"bucket", "key", "value"}},
	{Name: "publish", Title: "publish", Description: "Generic data publish utility", Params: []string{"subject"}},
	{Name: "bench_pub", Title: "bench pub", Description: "Publish Core NATS messages", Params: []string{"msgs", "subject"}},
	{Name: "consumer_ls", Title: "consumer ls", Description: "List known consumers", Params: []string{"stream"}, ReadOnly: true},
	{Name: "consumer_info", Title: "consumer info", Description: "Consumer information", Params: []string{"consumer", "stream"}, ReadOnly: true},
	{Name: "consumer_rm", Title: "consumer rm", Description: "Removes a consumer", Params: []string{"consumer", "stream"}},
	{Name: "consumer_state", Title: "consumer state", Description: "Consumer state", Params: []string{"consumer", "stream"}, ReadOnly: true},
	{Name: "consumer_report", Title: "consumer report", Description: "Reports on consumer statistics", Params: []string{"stream"}, ReadOnly: true},
}

func TestSearchReadsAQuestionAsARequestToSee(t *testing.T) {
	x := New(cli)
	tests := []struct{ query, want string }{
		// A question names no action, and an unknown word (foo) in it
		// is a name, not the action said in other words.
		{"what's the value of key foo in my config bucket", "kv_get"},
		// The number of the thing asked about: many, a list; one, its
		// information.
		{"which consumers does ORDERS have", "consumer_ls"},
		{"how far behind is my consumer", "consumer_info"},
	}
	for _, tc := range tests {
		if hits := x.Search(tc.query, 3); len(hits) == 0 || hits[0].Name != tc.want {
			t.Errorf("%q: got %v, want %s first", tc.query, names(hits), tc.want)
		}
	}
}

func TestSearchCountsAPhraseOnceAndFavoursTheNameTheQuerySays(t *testing.T) {
	x := New(cli)
	tests := []struct{ query, want string }{
		// key-value is the bucket kind, not a key and a value.
		{"create a new key-value bucket called config", "kv_add"},
		// bench_pub says publish and messages too, but the query
		// says nothing of a benchmark.
		{"send the message hello to the subject greetings", "publish"},
		// get rid is remove, not get.
		{"get rid of the consumer worker", "consumer_rm"},
	}
	for _, tc := range tests {
		if hits := x.Search(tc.query, 3); len(hits) == 0 || hits[0].Name != tc.want {
			t.Errorf("%q: got %v, want %s first", tc.query, names(hits), tc.want)
		}
	}
}

func TestAWordWhoseStemIsAnothersKeepsItsOwnMeaning(t *testing.T) {
	x := New(cli)
	// state stems to stat, which is also short for statistics.
	if hits := x.Search("show the stats of a consumer", 1); len(hits) == 0 || hits[0].Name != "consumer_report" {
		t.Errorf("show the stats of a consumer: got %v, want consumer_report", names(hits))
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Consumer state", []string{"consumer", "stat"}},
		{"the settings", []string{"config"}},
		{"set a key", []string{"set", "key"}},
	} {
		got := analyse(ranked, tc.text, false)
		if len(got) != len(tc.want) || got[0] != tc.want[0] || got[len(got)-1] != tc.want[len(tc.want)-1] {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}
