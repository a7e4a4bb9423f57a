package catalog

import (
	"slices"
	"testing"
)

// printing is a set where one command's help takes its group for granted:
// lp purge cancels jobs of the printer queue without saying so.
var printing = []Entry{
	{Name: "lp_purge", Title: "lp purge", Description: "Cancel every pending job", Context: []string{"Manage the printer queue"}},
	{Name: "spool_show", Title: "spool show", Description: "Show the printer queue"},
	{Name: "disk_usage", Title: "disk usage", Description: "Report disk usage"},
}

func TestSearchFindsAToolByItsGroupsHelpBelowOneThatSaysItItself(t *testing.T) {
	hits := New(printing).Search("printer queue", 3)
	if got := names(hits); !slices.Equal(got, []string{"spool_show", "lp_purge"}) {
		t.Errorf("got %v, want spool_show, then lp_purge for its group's help, and nothing else", got)
	}
	without := slices.Clone(printing)
	without[0].Context = nil
	if got := names(New(without).Search("printer queue", 3)); slices.Contains(got, "lp_purge") {
		t.Errorf("got %v without the group's help, want no lp_purge", got)
	}
}

// A word only groups' help says is read as the tools do not say it, as
// one only flags' help says is: it does not keep the query from its near
// words.
func TestSearchReadsAWordOnlyGroupsHelpSaysAsOneTheToolsDoNotSay(t *testing.T) {
	x := New([]Entry{
		{Name: "latency", Title: "latency", Description: "Perform latency tests between two servers"},
		{Name: "server_ping", Title: "server ping", Description: "Ping all servers", Context: []string{"Find the slowest servers"}},
	})
	hits := x.Search("find the slowest servers", 2)
	if len(hits) == 0 || hits[0].Name != "latency" {
		t.Errorf("got %v, want latency first", names(hits))
	}
	if !slices.ContainsFunc(hits, func(h Hit) bool { return h.Name == "server_ping" }) {
		t.Errorf("got %v, want server_ping too, for its group's help", names(hits))
	}
}
