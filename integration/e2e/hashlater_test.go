package e2e

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A start hashes its binaries' content after its first list, not before
// it: the log says so only once the list has been answered. A gated call
// made at once, whether or not the start-up's hash has run, is bound and
// approved as ever: a binding takes the hash it needs.
func TestTheStartHashesItsBinariesAfterTheFirstList(t *testing.T) {
	hashed := func(s *session) bool {
		for _, r := range s.log.records() {
			if strings.Contains(r["msg"].(string), "content is hashed") {
				return true
			}
		}
		return false
	}
	s := startStdio(t, client{protocol: modernProtocol}, fixtureBin)
	if hashed(s) {
		t.Fatal("the binaries were hashed before anything was listed")
	}
	if _, err := s.cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	rec := s.log.waitRecord(t, "the hash after the first list", func(r map[string]any) bool {
		return strings.Contains(r["msg"].(string), "content is hashed")
	})
	if rec["binaries"] != float64(1) {
		t.Errorf("hashed %v binaries, want the fixture's one", rec["binaries"])
	}

	// A call before the start-up is over needs the binding at once.
	for _, proto := range protocols {
		var mu sync.Mutex
		var asked []string
		approve := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
		early := startStdio(t, client{protocol: proto, elicit: answer(approve, &asked, &mu)}, fixtureBin)
		path := filepath.Join(t.TempDir(), "touched")
		if res := early.call(t, "touch", args("path", path)); res.IsError || !exists(path) {
			t.Errorf("%s: a gated call before the hash: %s", proto, text(res))
		}
	}
}
