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
		if s.discovery.Built(s.Tools()) {
			t.Fatalf("%s: an index exists before any search or readySet", c.mode)
		}
		s.readySet()
		if built := s.discovery.Built(s.Tools()); built != c.built {
			t.Errorf("%s: after readySet an index of the set in force is built: %v, want %v", c.mode, built, c.built)
		}
		if c.built && len(s.discovery.Index(s.Tools()).Search("echo", 1)) == 0 {
			t.Errorf("%s: the prepared index finds nothing for echo", c.mode)
		}
	}
}
