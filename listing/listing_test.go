package listing

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func TestBehaviourWordsReadWell(t *testing.T) {
	cases := []struct {
		b    exposure.Behavior
		want string
	}{
		{exposure.Behavior{ReadOnly: true, Idempotent: true, OpenWorld: true}, "read-only, idempotent"},
		{exposure.ConservativeBehavior, "destructive"},
		{exposure.Behavior{OpenWorld: false}, "additive, closed-world"},
	}
	for _, tc := range cases {
		if got := Behaviour(tc.b); got != tc.want {
			t.Errorf("Behaviour(%+v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

func TestOneLineKeepsTheFirstLineWithinWidth(t *testing.T) {
	if got := oneLine("  first line\nsecond", 72); got != "first line" {
		t.Errorf("got %q", got)
	}
	if got := oneLine("ééééééééé", 5); got != "éééé…" {
		t.Errorf("got %q", got)
	}
}
