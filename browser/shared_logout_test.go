package browser

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Signing out makes the browser forget its session: the page asks for
// the token again. A sign-out without the session's CSRF token, or from
// another origin, changes nothing.
func TestSharedSignOutForgetsTheSession(t *testing.T) {
	rig := newSharedRig(t, NewMemoryStore())
	c := browserClient(t)
	list := rig.signIn(t, c)
	if !strings.Contains(list.body, `action="/approvals/logout"`) || !strings.Contains(list.body, `id="logout"`) {
		t.Fatalf("the list has no sign-out:\n%s", list.body)
	}
	csrf := rowCSRF.FindStringSubmatch(list.body)[1]
	for name, tc := range map[string]struct {
		csrf   string
		header map[string]string
	}{
		"forged csrf":    {"forged", nil},
		"foreign origin": {csrf, map[string]string{"Origin": "http://evil.example"}},
	} {
		if p := post(t, c, rig.url()+"/logout", rig.srv.URL, url.Values{"csrf": {tc.csrf}}, tc.header); p.status != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, p.status)
		}
	}
	if l := get(t, c, rig.url()); !strings.Contains(l.body, "<h1>Pending approvals</h1>") {
		t.Fatalf("signed out by a refused sign-out:\n%s", l.body)
	}
	p := post(t, c, rig.url()+"/logout", rig.srv.URL, url.Values{"csrf": {csrf}}, nil)
	if p.status != http.StatusOK || !strings.Contains(p.body, `id="token"`) {
		t.Fatalf("sign-out: %d\n%s", p.status, p.body)
	}
	u, _ := url.Parse(rig.url())
	if ck := c.Jar.Cookies(u); len(ck) != 0 {
		t.Errorf("the browser still holds %v", ck)
	}
}
