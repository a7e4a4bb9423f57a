package browser

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/elicit"
)

// The gate logs who approved by asking the page; neither name is a secret.
func TestPagesNameWhoApprovesOnThem(t *testing.T) {
	for want, a := range map[string]elicit.Asker{"local user": &Local{}, "approver token": &Shared{}} {
		n, ok := a.(elicit.ApproverNamer)
		if !ok || n.Approver() != want {
			t.Errorf("%T names its approver %v, want %q", a, n, want)
		}
	}
}
