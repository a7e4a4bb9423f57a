package catalog

import (
	"slices"
	"testing"
)

// ops is a set where the way a request is phrased, not only its words,
// decides between tools.
var ops = []Entry{
	{Name: "backup_stream", Title: "backup stream", Description: "Creates a backup of a stream"},
	{Name: "backup_restore", Title: "backup restore", Description: "Restore a stream from a backup"},
	{Name: "operator_add", Title: "operator add", Description: "Adds a new Operator"},
	{Name: "operator_select", Title: "operator select", Description: "Selects the default operator"},
	{Name: "operator_keys_ls", Title: "operator keys ls", Description: "List Signing Keys", Params: []string{"signing-key"}},
	{Name: "operator_edit", Title: "operator edit", Description: "Edit an Operator", Params: []string{"signing-key"}},
	{Name: "consumer_pause", Title: "consumer pause", Description: "Pause a consumer until a later time"},
	{Name: "consumer_resume", Title: "consumer resume", Description: "Resume a paused consumer"},
	{Name: "consumer_next", Title: "consumer next", Description: "Retrieves messages from a consumer"},
	{Name: "consumer_rm", Title: "consumer rm", Description: "Removes a consumer"},
	{Name: "consumer_step-down", Title: "consumer step-down", Description: "Force a new leader election by standing down the current leader"},
	{Name: "stream_add", Title: "stream add", Description: "Create a new stream"},
	{Name: "config_get", Title: "config get", Description: "Gets a config value"},
	{Name: "service_reply", Title: "service reply", Description: "Generic service reply utility"},
	{Name: "archive_capture", Title: "archive capture", Description: "Captures an archive"},
	{Name: "archive_review", Title: "archive review", Description: "Analyzes an archive"},
}

func TestSearchReadsHowARequestIsPhrased(t *testing.T) {
	x := New(ops)
	tests := []struct{ query, want string }{
		// A verb and its particle said apart are one verb: put back
		// is restore, not put.
		{"put the streams back from a backup", "backup_restore"},
		// A compound the vocabulary does not know keeps its parts:
		// signing key is also a signing key, not only signing-key.
		{"which signing keys does my operator have", "operator_keys_ls"},
		// Make before a definite article changes a thing that exists.
		{"make the operator I work with the default", "operator_select"},
		// The action said as a participle of the thing is not what to
		// do with it.
		{"start a paused consumer again", "consumer_resume"},
		// A word the tools do not say reaches a word of a class it
		// begins with: a responder replies.
		{"run a responder", "service_reply"},
		// British spelling meets American.
		{"analyse the archive", "archive_review"},
		// A phrase the vocabulary links is read as one word: tear down
		// is remove, and says nothing of standing down.
		{"tear down the consumer", "consumer_rm"},
		// So is a phrase whose verb is said in another form.
		{"tearing down the consumer", "consumer_rm"},
		{"putting the streams back from a backup", "backup_restore"},
	}
	for _, tc := range tests {
		hits := x.Search(tc.query, 3)
		if len(hits) == 0 || hits[0].Name != tc.want {
			t.Errorf("%q: got %v, want %s first", tc.query, names(hits), tc.want)
		}
	}
	// A name after called is not looked for: operator names the
	// stream, it asks for no operator.
	hits := x.Search("create a stream called operator", 10)
	if len(hits) == 0 || hits[0].Name != "stream_add" || slices.ContainsFunc(hits, func(h Hit) bool {
		return slices.Contains([]string{"operator_select", "operator_edit", "operator_keys_ls"}, h.Name)
	}) {
		t.Errorf("create a stream called operator: got %v, want stream_add first and no tool only an operator matches", names(hits))
	}
}

func TestSearchVariesTheToolsOfAResult(t *testing.T) {
	x := New([]Entry{{Name: "a_ls"}, {Name: "b_ls"}, {Name: "c_ls"}, {Name: "report"}})
	st := &searchState{scores: []float64{10, 9.5, 9.4, 9}, said: []uint64{0b11, 0b11, 0b11, 0b101}, touched: []int32{0, 1, 2, 3}}
	// The three lists are matched by the same two words; the report by
	// one of them and another. Close behind the best list, it adds more
	// to a result of two than a second list would.
	hits := x.top(st, 2)
	if got := names(hits); !slices.Equal(got, []string{"a_ls", "report"}) {
		t.Errorf("got %v, want [a_ls report]", got)
	}
	if hits[1].Score > hits[0].Score {
		t.Errorf("got %v, want scores in order", hits)
	}
	// Far behind, it stays behind.
	st.scores = []float64{10, 9.5, 9.4, 5}
	if got := names(x.top(st, 3)); !slices.Equal(got, []string{"a_ls", "b_ls", "c_ls"}) {
		t.Errorf("got %v, want [a_ls b_ls c_ls]", got)
	}
}

func TestATagMostToolsCarryDoesNotMakeItsWordCommon(t *testing.T) {
	var entries []Entry
	for _, name := range []string{"stream_ls", "stream_rm", "stream_add", "stream_info", "consumer_ls", "consumer_rm"} {
		entries = append(entries, Entry{Name: name, Title: name, Tags: []string{"scope:user"}})
	}
	entries = append(entries, Entry{Name: "user_add", Title: "user add", Description: "Adds a user", Tags: []string{"scope:user"}})
	x := New(entries)
	hits := x.Search("add a user", 2)
	if len(hits) < 2 || hits[0].Name != "user_add" || hits[0].Score < 2*hits[1].Score {
		t.Errorf("got %v, want user_add first by far: a tag says nothing of what a tool does", hits)
	}
}

func TestStemMeetsBritishAndAmericanSpellings(t *testing.T) {
	for _, pair := range [][2]string{{"analyse", "analyze"}, {"organised", "organized"}, {"summarising", "summarizing"}, {"normalisation", "normalization"}} {
		a, b := string(stem([]byte(pair[0]))), string(stem([]byte(pair[1])))
		if a != b {
			t.Errorf("%s stems to %q, %s to %q: want the same", pair[0], a, pair[1], b)
		}
	}
}

func TestSearchFavoursATwoWordPhraseSaidTogether(t *testing.T) {
	x := New([]Entry{
		{Name: "alpha", Description: "Consumer messages, pulled"},
		{Name: "beta", Description: "Messages of a pull consumer"},
	})
	if hits := x.Search("pull consumer", 2); len(hits) != 2 || hits[0].Name != "beta" {
		t.Errorf("got %v, want beta first: it says pull consumer as a phrase", names(hits))
	}
}

func TestSearchMakesNoCompoundOfAContraction(t *testing.T) {
	x := New([]Entry{
		{Name: "id_show", Title: "id show", Description: "Shows an id"},
		{Name: "user_rm", Title: "user rm", Description: "Removes a user"},
		{Name: "well_known", Title: "well known", Description: "Lists the known ones"},
	})
	// "I'd" is not "id", and "we'll" is not "well": a clitic is a stop
	// word, never the second half of a word.
	if hits := x.Search("I'd like to remove the user", 3); len(hits) == 0 || hits[0].Name != "user_rm" || slices.ContainsFunc(hits, func(h Hit) bool { return h.Name == "id_show" }) {
		t.Errorf("got %v, want user_rm and nothing an id matches", names(hits))
	}
	if hits := x.Search("we'll remove the user", 3); slices.ContainsFunc(hits, func(h Hit) bool { return h.Name == "well_known" }) {
		t.Errorf("got %v, want nothing well matches", names(hits))
	}
}

func TestSearchReadsAParticipleInAQuestionAsAState(t *testing.T) {
	x := New([]Entry{
		{Name: "bucket_seal", Title: "bucket seal", Description: "Seals a bucket"},
		{Name: "bucket_info", Title: "bucket info", Description: "Bucket information, its size and state", ReadOnly: true},
	})
	// The question asks whether the bucket is sealed, not to seal it.
	wantFirst(t, x, "is the bucket sealed?", 2, "bucket_info")
	// Said as a request, sealing is what to do.
	wantFirst(t, x, "seal the bucket", 2, "bucket_seal")
}

func TestSearchReadsStoppingAnActionAsUndoingIt(t *testing.T) {
	x := New([]Entry{
		{Name: "export_add", Title: "export add", Description: "Adds a new export"},
		{Name: "export_info", Title: "export info", Description: "Shows an export"},
		{Name: "export_rm", Title: "export rm", Description: "Removes an export"},
	})
	// To stop exporting a service is to remove its export.
	wantFirst(t, x, "stop exporting the billing service", 3, "export_rm")
}

func TestSearchReadsAddingANumberAsArithmetic(t *testing.T) {
	x := New([]Entry{
		{Name: "counter_add", Title: "counter add", Description: "Adds a new counter"},
		{Name: "counter_increment", Title: "counter increment", Description: "Increment the value of a counter"},
	})
	wantFirst(t, x, "add 5 to the visits counter", 2, "counter_increment")
	wantFirst(t, x, "add a counter for visits", 2, "counter_add")
}

func TestSearchReachesTheLinksOfAWordAUserSaysInAnotherForm(t *testing.T) {
	x := New([]Entry{
		{Name: "latency", Title: "latency", Description: "Perform latency tests between two servers"},
		{Name: "server_ping", Title: "server ping", Description: "Ping all servers"},
	})
	// Slowest is no word of the tools; it begins with slow, which the
	// vocabulary links to latency.
	wantFirst(t, x, "find the slowest servers", 2, "latency")
}
