package exposure_test

import (
	"slices"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func TestCommandToolsReportTheHelpOfEveryGroupAboveThem(t *testing.T) {
	set := build(t, exposure.Policy{})
	groupHelp := func(name string) []string {
		t.Helper()
		g, ok := mustLookup(t, set, name).(exposure.Grouped)
		if !ok {
			t.Fatalf("command tool %q does not implement Grouped", name)
		}
		return g.GroupHelp()
	}
	got := groupHelp("admin_user_delete")
	if want := []string{"Administrative commands", "Manage users"}; !slices.Equal(got, want) {
		t.Errorf("admin_user_delete group help = %q, want %q", got, want)
	}
	got[0] = "changed"
	if again := groupHelp("admin_user_delete"); again[0] != "Administrative commands" {
		t.Errorf("GroupHelp shares its slice with the tool: %q", again)
	}
	if got := groupHelp("conflict_sparkle"); !slices.Equal(got, []string{"Commands whose tags disagree"}) {
		t.Errorf("conflict_sparkle group help = %q", got)
	}
	if got := groupHelp("echo"); got != nil {
		t.Errorf("echo group help = %q, want nil for a command beneath no group", got)
	}
}
