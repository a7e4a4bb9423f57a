package discovery

import (
	"fmt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// search_tools says what the set serves: the application, its number of
// tools and its groups with their help, so that a model knows which server
// to search and in which words.
func TestSearchToolsSaysWhatTheSetServes(t *testing.T) {
	set := fixtureSet(t, exposure.Policy{})
	apps, custom := summaries(set, nil)
	if len(apps) != 1 || custom != 0 {
		t.Fatalf("summaries: %d apps, %d custom tools; want the fixture alone", len(apps), custom)
	}
	a := apps[0]
	got := SearchDescriptorOfAll(set).Description
	want := fmt.Sprintf("It serves %s, %d tools: ", a.name, set.Len())
	if !strings.Contains(got, want) {
		t.Fatalf("description %q\nlacks %q", got, want)
	}
	for _, g := range a.groups {
		if !strings.Contains(got, g) {
			t.Errorf("description lacks the group %q: %q", g, got)
		}
	}
	if again := SearchDescriptorOfAll(fixtureSet(t, exposure.Policy{})).Description; again != got {
		t.Errorf("the same set described twice differs:\n%q\n%q", got, again)
	}
	if d := SearchDescriptorOfAll(customSet(t)).Description; strings.Contains(d, "It serves") {
		t.Errorf("an empty set is said to serve something: %q", d)
	}
}

// Applications whose binaries have one name are told apart in the
// summary: one binary served under two prefixes by its prefixes, two
// binaries without a prefix by their paths; each counts its own tools.
func TestTheSummaryTellsApartApplicationsOfOneName(t *testing.T) {
	load := func(apps ...exposure.App) *exposure.ToolSet {
		t.Helper()
		set, err := exposure.Load(t.Context(), apps, nil, exposure.Policy{}, exposure.LoadOptions{})
		if err != nil {
			t.Fatalf("loading %v: %v", apps, err)
		}
		return set
	}
	base := filepath.Base(fixtureBin)
	one := load(exposure.App{Path: fixtureBin}).Len()

	prefixed := SearchDescriptorOfAll(load(exposure.App{Prefix: "prod", Path: fixtureBin}, exposure.App{Prefix: "dev", Path: fixtureBin})).Description
	for _, want := range []string{
		fmt.Sprintf("It serves %s (dev_…), %d tools: ", base, one),
		fmt.Sprintf("; %s (prod_…), %d tools: ", base, one),
	} {
		if !strings.Contains(prefixed, want) {
			t.Errorf("one binary under two prefixes: description %q\nlacks %q", prefixed, want)
		}
	}
	if alone := SearchDescriptorOfAll(load(exposure.App{Prefix: "prod", Path: fixtureBin})).Description; !strings.Contains(alone, fmt.Sprintf("It serves %s, %d tools: ", base, one)) {
		t.Errorf("an application alone is named by more than its binary: %q", alone)
	}

	// A copy of the binary elsewhere, serving other commands than the
	// first, so that both load without prefixes.
	other := filepath.Join(t.TempDir(), "elsewhere", base)
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(fixtureBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	first := exposure.App{Path: fixtureBin, Include: []*regexp.Regexp{regexp.MustCompile(`^echo`)}}
	second := exposure.App{Path: other, Exclude: []*regexp.Regexp{regexp.MustCompile(`^echo`)}}
	twoPaths := SearchDescriptorOfAll(load(first, second)).Description
	for _, path := range []string{fixtureBin, other} {
		if want := pathTail(path, maxGroupHelp) + ", "; !strings.Contains(twoPaths, want) {
			t.Errorf("two binaries of one name: description %q\nlacks %q", twoPaths, want)
		}
	}
}

func TestPathTailKeepsTheEndOfALongPath(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/nats": "/usr/bin/nats",
		"/home/someone/projects/deployments/production/bin/nats": "…/deployments/production/bin/nats",
		"/opt/" + strings.Repeat("x", 60) + "/nats":              "…/nats",
	} {
		if got := pathTail(in, 40); got != want || len(got) > 40 {
			t.Errorf("pathTail(%q, 40) = %q (%d bytes), want %q", in, got, len(got), want)
		}
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

// SearchDescriptorOfAll is search_tools's descriptor for a caller who sees
// every tool.
func SearchDescriptorOfAll(set *exposure.ToolSet) *mcp.Tool { return SearchDescriptor(set, nil) }
