package elicit

import (
	"strings"
	"testing"
)

// signingBrowser is a page that signs people in and lets only those
// allowed decide.
type signingBrowser struct{ *fakeBrowser }

func (signingBrowser) SignsPeopleIn() bool { return true }

func TestACallItsCallerMayNotApproveIsNeverAskedThroughTheClient(t *testing.T) {
	cases := []struct {
		name    string
		gate    func() (Options, *fakeBrowser)
		browser bool // asked, and so run, on the page
	}{
		{"elicit", func() (Options, *fakeBrowser) { return Options{}, nil }, false},
		{"elicit-or-browser, a page without sign-in", func() (Options, *fakeBrowser) {
			b := deciding(OutcomeApproved, nil)
			return Options{Mode: ModeElicitOrBrowser, Browser: b}, b
		}, false},
		{"browser, a page without sign-in", func() (Options, *fakeBrowser) {
			b := deciding(OutcomeApproved, nil)
			return Options{Mode: ModeBrowser, Browser: b}, b
		}, false},
		{"elicit-or-browser, a page that signs people in", func() (Options, *fakeBrowser) {
			b := deciding(OutcomeApproved, nil)
			return Options{Mode: ModeElicitOrBrowser, Browser: signingBrowser{b}}, b
		}, true},
	}
	for _, c := range cases {
		for _, v := range versions {
			t.Run(c.name+"/"+v, func(t *testing.T) {
				opts, b := c.gate()
				f := newFixture(t, fixtureOptions{gate: opts, othersOnly: true})
				serverAsked := countServerElicitations(f.srv)
				a := answering("accept", map[string]any{"approve": true}) // a client that would approve
				cs := f.connect(v, a.options())

				res := call(t, cs, "rm", map[string]any{"name": "orders"})

				if n := len(a.asked()); n != 0 || serverAsked.Load() != 0 {
					t.Errorf("the caller's client was asked %d times and sent %d elicitations, want none", n, serverAsked.Load())
				}
				if c.browser {
					if res.IsError || f.ran.Load() != 1 || len(b.requests()) != 1 {
						t.Fatalf("result %q (isError %v), ran %d, page asked %d: want approved on the page and run once", text(res), res.IsError, f.ran.Load(), len(b.requests()))
					}
					return
				}
				f.wantRefused(res, CodeNoCapability, "needs approval by someone other than its caller")
				if b != nil && len(b.requests()) != 0 {
					t.Errorf("a page that does not know who decides was asked %d times, want none", len(b.requests()))
				}
				if d := f.last(); d.Detail == "" || !strings.Contains(d.Detail, "--approvals-client-id") {
					t.Errorf("decision detail %q does not tell the operator what to set", d.Detail)
				}
			})
		}
	}
}
