package server

import (
	"encoding/json"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// ListTools answers what a client of a server with the same settings lists,
// in either mode, and Defers takes the server's own decision.
func TestListToolsIsWhatAServedClientLists(t *testing.T) {
	set := fixtureSet(t, exposure.Policy{})
	n := served(set)
	for _, tc := range []struct {
		cfg      Config
		deferred bool
	}{
		{Config{Defer: DeferNever}, false},
		{Config{Defer: DeferAlways}, true},
		{Config{}, n > DefaultDeferThreshold},
		{Config{DeferThreshold: n - 1}, true},
		{Config{DeferThreshold: n}, false},
	} {
		if got := Defers(tc.cfg, set); got != tc.deferred {
			t.Errorf("Defers(%+v) over %d tools = %v", tc.cfg, n, got)
		}
		s, _ := newServer(t, tc.cfg, set)
		served, err := connect(t, s, testsupport.LegacyProtocol, nil).ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ListTools(t.Context(), tc.cfg, set)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(served.Tools)
		if b, _ := json.Marshal(got.Tools); string(b) != string(want) {
			t.Errorf("%+v: ListTools gave\n%s\nthe served list is\n%s", tc.cfg, b, want)
		}
		if s.listing.Load().deferred != tc.deferred {
			t.Errorf("%+v: the server's listing disagrees with Defers", tc.cfg)
		}
	}
}
