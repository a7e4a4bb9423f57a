package browser

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

var approveButton = regexp.MustCompile(`<button (?:id|class)="approve"[^>]*>`)

// Approve buttons are served disabled and armed by the page's script a
// moment after the load, so a click meant for what was under the pointer
// before (a row the list's refresh moved, another window) approves
// nothing; Deny is served enabled. A decided page stays unarmed.
func TestPagesServeApproveDisabledUntilArmed(t *testing.T) {
	store := newNotifyStore()
	rig := newSharedRig(t, store)
	askShared(t, t.Context(), rig.s, store, sharedRequest("s1"))
	list := rig.signIn(t, browserClient(t)).body

	lr := newLocalRig(t, time.Hour)
	u, _ := lr.ask(t, t.Context(), lr.request("n1"))
	local, _, _ := open(t, browserClient(t), u)

	for name, body := range map[string]string{"shared list": list, "local page": local.body} {
		b := approveButton.FindString(body)
		if !strings.Contains(b, " disabled") || !strings.Contains(b, " data-arm") {
			t.Errorf("%s: Approve is %q, want it disabled and armed later", name, b)
		}
		if !strings.Contains(body, `querySelectorAll("[data-arm]")`) {
			t.Errorf("%s: no script arms the Approve buttons", name)
		}
		if regexp.MustCompile(`<button (?:id|class)="deny"[^>]* disabled`).MatchString(body) {
			t.Errorf("%s: Deny is held back too", name)
		}
	}
}
