package server

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// Readying a set builds the index a deferred set's first search would
// build, and nothing for a set listed in full.
func TestReadySetBuildsTheIndexOfADeferredSetOnly(t *testing.T) {
	for _, c := range []struct {
		mode  DeferMode
		built bool
	}{{DeferAlways, true}, {DeferNever, false}} {
		s, _ := newServer(t, Config{Defer: c.mode}, fixtureSet(t, exposure.Policy{}))
		if v := s.catalog.Load(); v != nil {
			t.Fatalf("%s: an index exists before any search or readySet", c.mode)
		}
		s.readySet()
		v := s.catalog.Load()
		if built := v != nil && v.index != nil && v.set == s.Tools(); built != c.built {
			t.Errorf("%s: after readySet an index of the set in force is built: %v, want %v", c.mode, built, c.built)
		}
		if c.built && len(v.index.Search("echo", 1)) == 0 {
			t.Errorf("%s: the prepared index finds nothing for echo", c.mode)
		}
	}
}

// A search still running on the set a reload replaced uses that set's
// index, but does not put it back in place of the index prepared for the
// set in force, which the next search would otherwise build again.
func TestASearchOfAReplacedSetKeepsTheIndexOfTheSetInForce(t *testing.T) {
	old := fixtureSet(t, exposure.Policy{})
	s, _ := newServer(t, Config{Defer: DeferAlways}, old)
	s.Publish(fixtureSet(t, exposure.Policy{AdditiveTags: []string{"ops:prod"}}))
	s.readySet()
	prepared := s.catalog.Load()
	if len(s.indexOf(old).Search("echo", 1)) == 0 {
		t.Fatal("the replaced set's own index finds nothing for echo")
	}
	if v := s.catalog.Load(); v != prepared || v.set != s.Tools() {
		t.Errorf("after a search of the replaced set, the kept index is of %p, want the prepared one of the set in force %p", v.set, s.Tools())
	}
}
