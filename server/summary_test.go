package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// search_tools says what the set serves: the application, its number of
// tools and its groups with their help, so that a model knows which server
// to search and in which words.
func TestSearchToolsSaysWhatTheSetServes(t *testing.T) {
	set := fixtureSet(t, exposure.Policy{})
	apps, custom := summaries(set)
	if len(apps) != 1 || custom != 0 {
		t.Fatalf("summaries: %d apps, %d custom tools; want the fixture alone", len(apps), custom)
	}
	a := apps[0]
	got := searchToolsDescriptor(set).Description
	want := fmt.Sprintf("It serves %s, %d tools: ", a.name, set.Len())
	if !strings.Contains(got, want) {
		t.Fatalf("description %q\nlacks %q", got, want)
	}
	for _, g := range a.groups {
		if !strings.Contains(got, g) {
			t.Errorf("description lacks the group %q: %q", g, got)
		}
	}
	if again := searchToolsDescriptor(fixtureSet(t, exposure.Policy{})).Description; again != got {
		t.Errorf("the same set described twice differs:\n%q\n%q", got, again)
	}
	if d := searchToolsDescriptor(customSet(t)).Description; strings.Contains(d, "It serves") {
		t.Errorf("an empty set is said to serve something: %q", d)
	}
}

// However many groups and however long their help, the summary stays
// within maxSummary: the help goes first, then the groups past what fits.
func TestTheSummaryIsBounded(t *testing.T) {
	group := func(n int) *appSummary {
		a := &appSummary{name: "bigcli", tools: 10 * n, help: map[string]string{}}
		for i := range n {
			g := fmt.Sprintf("group%03d", i)
			a.groups = append(a.groups, g)
			a.help[g] = strings.Repeat("h", maxGroupHelp)
		}
		return a
	}
	for _, tc := range []struct {
		name   string
		apps   []*appSummary
		custom int
		has    string
	}{
		{"with help", []*appSummary{group(5)}, 0, "group004 (hhh"},
		{"names only", []*appSummary{group(40)}, 2, "group039; and 2 tools of its own."},
		{"the first groups", []*appSummary{group(400)}, 0, "and 336 more."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := summarize(tc.apps, tc.custom)
			if len(s) > maxSummary || !strings.Contains(s, tc.has) {
				t.Errorf("%d bytes (at most %d), want one with %q: %q", len(s), maxSummary, tc.has, s)
			}
		})
	}
	var many []*appSummary
	for i := range 200 {
		many = append(many, &appSummary{name: fmt.Sprintf("app%03d", i), tools: 1, groups: []string{"only"}, help: map[string]string{}})
	}
	if s := summarize(many, 0); len(s) > maxSummary || !strings.HasSuffix(s, ", and more.") {
		t.Errorf("200 applications: %d bytes (at most %d): %q", len(s), maxSummary, s[max(0, len(s)-80):])
	}
}

// The application's help reaches the model on one line, without control
// or format characters, cut at a word.
func TestSummaryLineKeepsPrintableTextOnly(t *testing.T) {
	for in, want := range map[string]string{
		"Manage streams.\nLonger help":                       "Manage streams",
		"Red \x1b[31malert\x1b[0m":                           "Red [31malert[0m",
		"evil \u202egnp.exe":                                 "evil gnp.exe",
		"A rather long help text that goes on and on and on": "A rather long help text that goes on and on and…",
	} {
		if got := summaryLine(in, maxGroupHelp); got != want {
			t.Errorf("summaryLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// search_tools's description follows the set: a published set that serves
// other tools reaches the clients as a changed list.
func TestPublishTellsClientsWhatADeferredSetNowServes(t *testing.T) {
	s, _ := newServer(t, Config{Defer: DeferAlways}, fixtureSet(t, exposure.Policy{}))
	opts, changed, subscribed := listChangedClient(legacyVersion)
	cs := connect(t, s, legacyVersion, opts)
	wait(t, subscribed, "the session to listen")
	before := listTools(t, cs)[searchToolsName].Description

	s.Publish(fixtureSet(t, exposure.Policy{Include: mustRegexps(t, "^(echo|deploy|touch)$")}))
	wait(t, changed, "notifications/tools/list_changed")
	after := listTools(t, cs)[searchToolsName].Description
	if after == before || !strings.Contains(after, ", 3 tools: ") {
		t.Errorf("after publishing 3 of the fixture's tools, search_tools says\n%q\n(before: %q)", after, before)
	}
}
