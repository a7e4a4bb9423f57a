package exposure_test

import (
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func TestDiffReportsAddedRemovedAndChangedTools(t *testing.T) {
	old := build(t, exposure.Policy{})
	custom := newCustom(t, exposure.CustomSpec{Name: "inventory_search"})
	next, err := exposure.Build([]exposure.LoadedApp{fixtureApp(t, "")}, []exposure.Tool{custom}, exposure.Policy{
		Exclude:      []*regexp.Regexp{regexp.MustCompile(`^emit$`)},
		ConfirmTags:  []string{"ops:prod"},  // gates deploy and admin user delete
		ReadOnlyTags: []string{"impact:ro"}, // status becomes read-only
	})
	if err != nil {
		t.Fatal(err)
	}
	d := exposure.Diff(old, next)
	want := exposure.SetDiff{
		Added:   []string{"inventory_search"},
		Removed: []string{"emit"},
		Changed: []string{"admin_user_delete", "deploy", "status"},
	}
	if !slices.Equal(d.Added, want.Added) || !slices.Equal(d.Removed, want.Removed) || !slices.Equal(d.Changed, want.Changed) {
		t.Errorf("Diff = %+v\nwant   %+v", d, want)
	}
}

func TestDiffOfEqualBuildsIsEmpty(t *testing.T) {
	if d := exposure.Diff(build(t, exposure.Policy{}), build(t, exposure.Policy{})); !d.Empty() {
		t.Errorf("Diff = %+v, want empty", d)
	}
}

func TestDiffSeesSchemaAndExposureChanges(t *testing.T) {
	old := build(t, exposure.Policy{})
	a := fixtureApp(t, "")
	a.Globals = []string{"server"} // every schema gains a property
	next, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if d := exposure.Diff(old, next); !slices.Equal(d.Changed, fixtureTools) {
		t.Errorf("Changed = %v, want every tool", d.Changed)
	}

	open := newCustom(t, exposure.CustomSpec{})
	closed := newCustom(t, exposure.CustomSpec{Exposure: &exposure.Exposure{A2A: true}})
	s1, _ := exposure.Build(nil, []exposure.Tool{open}, exposure.Policy{})
	s2, _ := exposure.Build(nil, []exposure.Tool{closed}, exposure.Policy{})
	if d := exposure.Diff(s1, s2); !slices.Equal(d.Changed, []string{"search"}) {
		t.Errorf("exposure change: Diff = %+v", d)
	}
}

func TestDiffFromNilAddsEverythingAndToNilRemovesEverything(t *testing.T) {
	set := build(t, exposure.Policy{})
	if d := exposure.Diff(nil, set); !slices.Equal(d.Added, fixtureTools) || d.Removed != nil || d.Changed != nil {
		t.Errorf("Diff(nil, set) = %+v", d)
	}
	if d := exposure.Diff(set, nil); !slices.Equal(d.Removed, fixtureTools) || d.Added != nil {
		t.Errorf("Diff(set, nil) = %+v", d)
	}
}

func TestToolSetAccessorsReturnCopies(t *testing.T) {
	set, err := exposure.Rebuild(twoApps(t, "", ""), nil, exposure.Policy{ConfirmTags: []string{"nosuch"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, warnings, skipped := set.Tools(), set.Warnings(), set.Skipped()
	tools[0] = nil
	warnings[0] = "changed"
	skipped[0].Name = "changed"
	if set.Tools()[0] == nil || set.Warnings()[0] == "changed" || set.Skipped()[0].Name == "changed" {
		t.Error("a ToolSet changed through a returned slice")
	}
	echo := mustLookup(t, set, "echo")
	echo.InputSchema()["type"] = "string"
	if echo.InputSchema()["type"] != "object" {
		t.Error("a tool's schema changed through a returned map")
	}
	src := echo.(exposure.Sourced)
	src.Tags()[0] = "changed"
	if src.Tags()[0] != exposure.TagReadOnly {
		t.Error("a tool's tags changed through a returned slice")
	}
}

func TestNilToolSetIsEmpty(t *testing.T) {
	var s *exposure.ToolSet
	if s.Len() != 0 || s.Tools() != nil || s.Warnings() != nil || s.Skipped() != nil {
		t.Error("nil set is not empty")
	}
	if _, ok := s.Lookup("echo"); ok {
		t.Error("nil set found a tool")
	}
}

func TestPublishReturnsTheDiffAgainstTheReplacedSet(t *testing.T) {
	first := build(t, exposure.Policy{})
	second := build(t, exposure.Policy{Exclude: []*regexp.Regexp{regexp.MustCompile(`^e`)}})
	c := exposure.NewCurrent(first)
	if c.Load() != first {
		t.Fatal("Load does not return the initial set")
	}
	d := c.Publish(second)
	if !slices.Equal(d.Removed, []string{"echo", "emit", "env", "exit"}) || len(d.Added)+len(d.Changed) != 0 {
		t.Errorf("Publish diff = %+v", d)
	}
	if c.Load() != second {
		t.Error("Load does not return the published set")
	}
	var zero exposure.Current
	if zero.Load() != nil || len(zero.Publish(first).Added) != len(fixtureTools) {
		t.Error("the zero Current is not an empty holder")
	}
}

// TestCurrentReadersAlwaysSeeAWholeSet publishes two sets alternately while
// readers load concurrently; run with -race. A reader must always see one of
// the two sets whole: its length and its lookups agree.
func TestCurrentReadersAlwaysSeeAWholeSet(t *testing.T) {
	small := build(t, exposure.Policy{Include: []*regexp.Regexp{regexp.MustCompile(`^e`)}})
	large := build(t, exposure.Policy{})
	c := exposure.NewCurrent(small)
	const rounds = 2000
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range rounds {
				s := c.Load()
				_, hasStatus := s.Lookup("status")
				switch {
				case s.Len() == small.Len() && !hasStatus:
				case s.Len() == large.Len() && hasStatus:
				default:
					t.Errorf("reader saw a mixed set: %d tools, status=%v", s.Len(), hasStatus)
					return
				}
				for _, tool := range s.Tools() {
					if got, ok := s.Lookup(tool.Name()); !ok || got != tool {
						t.Errorf("set is inconsistent at %s", tool.Name())
						return
					}
				}
			}
		})
	}
	wg.Go(func() {
		for i := range rounds {
			next := large
			if i%2 == 1 {
				next = small
			}
			if old := c.Load(); old == next {
				continue
			}
			c.Publish(next)
		}
	})
	wg.Wait()
}
