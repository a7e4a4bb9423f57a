package browser

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A decision's log line says from which address it came (everyone signs
// in with the one token), and no log line carries the token, the session
// cookie or the CSRF token.
func TestSharedDecisionIsLoggedWithItsAddressAndNoSecret(t *testing.T) {
	store := newNotifyStore()
	rig := newSharedRig(t, store)
	out := askShared(t, t.Context(), rig.s, store, sharedRequest("d1"))
	c := browserClient(t)
	csrf := rowCSRF.FindStringSubmatch(rig.signIn(t, c).body)[1]
	post(t, c, rig.url()+"/login", rig.srv.URL, url.Values{"token": {"wrong-wrong-wrong-wrong"}}, nil)
	if p := post(t, c, rig.url()+"/decide", rig.srv.URL, url.Values{"id": {"d1"}, "decision": {"deny"}, "csrf": {csrf}}, nil); p.status != http.StatusOK {
		t.Fatalf("deny: %d", p.status)
	}
	outcome(t, out)
	u, _ := url.Parse(rig.url())
	ck := c.Jar.Cookies(u)
	if len(ck) != 1 {
		t.Fatalf("cookies %v", ck)
	}
	logs := rig.logs.String()
	var decided string
	for line := range strings.Lines(logs) {
		if strings.Contains(line, "approval decided on the approvals page") {
			decided = line
		}
	}
	for _, want := range []string{"approval=d1", "outcome=denied", "remote=127.0.0.1:"} {
		if !strings.Contains(decided, want) {
			t.Errorf("the decision's log line lacks %q: %q", want, decided)
		}
	}
	for name, secret := range map[string]string{"token": approverToken, "wrong token": "wrong-wrong", "session": ck[0].Value, "csrf": csrf} {
		if strings.Contains(logs, secret) {
			t.Errorf("the %s is in the logs:\n%s", name, logs)
		}
	}
}
