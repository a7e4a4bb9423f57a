package server

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// The fixture's admin user delete is also admin member expel: words that
// only its aliases say find it.
func TestSearchToolsFindsACommandByItsAliases(t *testing.T) {
	s, _ := newServer(t, Config{Defer: DeferAlways}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, modernVersion, nil)
	res := call(t, cs, "search_tools", map[string]any{"query": "expel a member"})
	if lines := strings.Split(text(res), "\n"); res.IsError || len(lines) < 2 || !strings.HasPrefix(lines[1], "- admin_user_delete:") {
		t.Errorf("searching by the aliases of admin user delete:\n%s", text(res))
	}
}
