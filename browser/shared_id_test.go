package browser

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/elicit"
)

// listFails is a store whose reads fail.
type listFails struct{ *MemoryStore }

func (listFails) List(context.Context) ([]Pending, error) { return nil, errors.New("store down") }

// A decision posted for an ID no approval can have is answered without
// asking the store, and the ID, the signed-in person's text, reaches no
// log line.
func TestSharedDecisionOfAnImpossibleIDIsNoLongerPendingAndNotLogged(t *testing.T) {
	rig := newSharedRig(t, listFails{NewMemoryStore()})
	c := browserClient(t)
	if p := post(t, c, rig.url()+"/login", rig.srv.URL, url.Values{"token": {approverToken}}, nil); p.status != http.StatusServiceUnavailable {
		t.Fatalf("signing in with the store down: %d", p.status)
	}
	u, _ := url.Parse(rig.url())
	ck := c.Jar.Cookies(u)
	if len(ck) != 1 {
		t.Fatalf("cookies %v", ck)
	}
	csrf := rig.s.sessions.csrf(ck[0].Value)
	for _, id := range []string{"", "x\nlevel=ERROR msg=forged", strings.Repeat("i", 3000), "a/b", "ü"} {
		p := post(t, c, rig.url()+"/decide", rig.srv.URL, url.Values{"csrf": {csrf}, "decision": {"approve"}, "id": {id}}, nil)
		if p.status != http.StatusConflict || !strings.Contains(p.body, "no longer pending") {
			t.Errorf("id %.20q: %d\n%s", id, p.status, p.body)
		}
	}
	if logs := rig.logs.String(); strings.Contains(logs, "forged") || strings.Contains(logs, "iiiiiiii") || strings.Contains(logs, "deciding") {
		t.Errorf("the logs repeat the posted ID:\n%.600s", logs)
	}
}

// Ask refuses what the page could not name, as Local does, and says so in
// a bounded error.
func TestAsksRefuseAnImpossibleIDInABoundedError(t *testing.T) {
	s, err := NewShared(SharedOptions{Token: []byte(approverToken), Store: NewMemoryStore()})
	if err != nil {
		t.Fatal(err)
	}
	l := NewLocal(LocalOptions{Open: func(context.Context, string) error { return nil }})
	t.Cleanup(func() { l.Close() })
	for name, a := range map[string]elicit.Asker{"shared": s, "local": l} {
		_, err := a.Ask(t.Context(), Request{ID: "x\n" + strings.Repeat("y", 10000), Tool: "stream_rm", Deadline: time.Now()})
		if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "letters, digits") {
			t.Errorf("%s: %.300v", name, err)
		}
	}
}

// A page path that could not be served (ServeMux patterns, a cookie's
// Path) is refused by NewShared, not by a panic when the handler is made.
func TestNewSharedRefusesAPathItCannotServe(t *testing.T) {
	for _, base := range []string{"/", "approvals", "/x {y}", "/a b", "//", "/a/../b", "/{$}", "/a//b"} {
		s, err := NewShared(SharedOptions{Token: []byte(approverToken), Store: NewMemoryStore(), Base: base})
		if err == nil {
			t.Errorf("Base %q accepted as %q", base, s.base)
			continue
		}
		if !strings.Contains(err.Error(), "/approvals") {
			t.Errorf("Base %q: %v", base, err)
		}
	}
	for base, want := range map[string]string{"": "/approvals", "/ok/": "/ok", "/team-a/approvals": "/team-a/approvals"} {
		s, err := NewShared(SharedOptions{Token: []byte(approverToken), Store: NewMemoryStore(), Base: base})
		if err != nil || s.base != want {
			t.Errorf("Base %q: %v, serving at %q, want %q", base, err, s.base, want)
			continue
		}
		s.Handler()
	}
}
