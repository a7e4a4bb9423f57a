package catalog

import (
	"slices"
	"sync"
	"testing"
)

// small is a set in the shape of a CLI's: a noun group and verbs.
var small = []Entry{
	{Name: "stream_rm", Title: "stream rm", Description: "Removes a stream", Params: []string{"force", "stream"}},
	{Name: "stream_ls", Title: "stream ls", Description: "List all known streams", Params: []string{"json"}},
	{Name: "stream_purge", Title: "stream purge", Description: "Bulk removes messages from a stream", Params: []string{"stream"}},
	{Name: "stream_info", Title: "stream info", Description: "Stream information", Params: []string{"stream"}},
	{Name: "bench_js_ordered", Title: "bench js ordered", Description: "Consume messages using an ordered consumer"},
	{Name: "kv_add", Title: "kv add", Description: "Adds a new KV Store Bucket", Tags: []string{"impact:rw"}, Gated: true},
	{Name: "server_list", Title: "server list", Description: "List known servers", ReadOnly: true},
	{Name: "server_cluster_balance", Title: "server cluster balance", Description: "Balance cluster connections"},
}

// wantFirst checks that the first of k hits for query is the entry want.
func wantFirst(t *testing.T, x *Index, query string, k int, want string) {
	t.Helper()
	if hits := x.Search(query, k); len(hits) == 0 || hits[0].Name != want {
		t.Errorf("%q: got %v, want %s first", query, names(hits), want)
	}
}

func names(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Name)
	}
	return out
}

func TestSearchRanksFirstTheToolThatSaysTheQuerysWords(t *testing.T) {
	x := New(small)
	tests := []struct{ query, want string }{
		{"rm the ORDERS stream", "stream_rm"},
		{"stream information", "stream_info"},
		{"wipe the messages of a stream", "stream_purge"},
		{"create a key-value bucket", "kv_add"},
		{"which servers are there", "server_list"},
		{"stream_ls", "stream_ls"},
	}
	for _, tc := range tests {
		hits := x.Search(tc.query, 3)
		if len(hits) == 0 || hits[0].Name != tc.want {
			t.Errorf("%q: got %v, want %s first", tc.query, names(hits), tc.want)
		}
	}
}

func TestSearchReturnsNothingForAQueryNoToolMatches(t *testing.T) {
	x := New(small)
	for _, q := range []string{"", "   ", "the of and", "zebra giraffe", "the ORDERS"} {
		if hits := x.Search(q, 5); len(hits) != 0 {
			t.Errorf("%q: got %v, want no hits", q, names(hits))
		}
	}
}

func TestSearchBreaksTiesByNameAndHonoursTheLimit(t *testing.T) {
	x := New(small)
	hits := x.Search("stream", 0)
	if len(hits) == 0 || len(hits) > DefaultLimit {
		t.Fatalf("got %d hits, want 1 to %d", len(hits), DefaultLimit)
	}
	for i := 1; i < len(hits); i++ {
		a, b := hits[i-1], hits[i]
		if a.Score < b.Score || a.Score == b.Score && a.Name > b.Name {
			t.Errorf("hits out of order: %v then %v", a, b)
		}
	}
	if got := x.Search("stream", 2); !slices.Equal(names(got), names(hits[:2])) {
		t.Errorf("limit 2: got %v, want the first two of %v", names(got), names(hits))
	}
	// Two entries that say the same thing tie, and the name decides.
	twins := New([]Entry{{Name: "b_list", Description: "List things"}, {Name: "a_list", Description: "List things"}})
	if got := names(twins.Search("list things", 5)); !slices.Equal(got, []string{"a_list", "b_list"}) {
		t.Errorf("tie: got %v, want a_list before b_list", got)
	}
}

func TestSearchIsTheSameWhenRepeatedAndConcurrent(t *testing.T) {
	x := New(small)
	want := x.Search("remove a stream's messages", 5)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if got := x.Search("remove a stream's messages", 5); !slices.Equal(got, want) {
					t.Errorf("got %v, want %v", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestSearchReadsOnlyTheStartOfAHugeQuery(t *testing.T) {
	x := New(small)
	huge := "rm stream " + string(make([]byte, 1<<20))
	if hits := x.Search(huge, 1); len(hits) != 1 || hits[0].Name != "stream_rm" {
		t.Errorf("got %v, want stream_rm", names(hits))
	}
}

func TestNewKeepsTheFirstOfTwoEntriesWithOneNameAndCopiesEntries(t *testing.T) {
	in := []Entry{
		{Name: "a", Description: "first", Tags: []string{"x"}},
		{Name: "a", Description: "second"},
	}
	x := New(in)
	in[0].Tags[0] = "changed"
	e, ok := x.Entry("a")
	if !ok || x.Len() != 1 || e.Description != "first" || e.Tags[0] != "x" {
		t.Fatalf("got %+v (ok %v, len %d), want the first entry as it was given", e, ok, x.Len())
	}
	e.Tags[0] = "mine"
	if again, _ := x.Entry("a"); again.Tags[0] != "x" {
		t.Errorf("an entry returned by Entry shares its tags with the index")
	}
	if _, ok := x.Entry("b"); ok {
		t.Errorf("Entry found a name that is not in the index")
	}
}

func TestAnEmptyIndexFindsNothing(t *testing.T) {
	if hits := New(nil).Search("list streams", 5); hits != nil {
		t.Errorf("got %v, want nil", hits)
	}
}

func TestATagMostToolsCarryDoesNotMakeItsWordCommon(t *testing.T) {
	var entries []Entry
	for _, name := range []string{"stream_ls", "stream_rm", "stream_add", "stream_info", "consumer_ls", "consumer_rm"} {
		entries = append(entries, Entry{Name: name, Title: name, Tags: []string{"scope:user"}})
	}
	entries = append(entries, Entry{Name: "user_add", Title: "user add", Description: "Adds a user", Tags: []string{"scope:user"}})
	x := New(entries)
	hits := x.Search("add user", 2)
	if len(hits) < 2 || hits[0].Name != "user_add" || hits[0].Score < 1.3*hits[1].Score {
		t.Errorf("got %v, want user_add first by far: a tag says nothing of what a tool does", hits)
	}
}
