package elicit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// fakeBrowser stands in for the person's browser: it records what it was
// shown and ends each approval with the outcome its decide function gives.
type fakeBrowser struct {
	mu     sync.Mutex
	shown  []PageRequest
	decide func(ctx context.Context, r PageRequest) (Outcome, error)
}

func (b *fakeBrowser) Ask(ctx context.Context, r PageRequest) (Outcome, error) {
	b.mu.Lock()
	b.shown = append(b.shown, r)
	b.mu.Unlock()
	return b.decide(ctx, r)
}

func (b *fakeBrowser) requests() []PageRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]PageRequest(nil), b.shown...)
}

func deciding(o Outcome, err error) *fakeBrowser {
	return &fakeBrowser{decide: func(context.Context, PageRequest) (Outcome, error) { return o, err }}
}

func TestBrowserModeAsksInTheBrowserNeverThroughTheClient(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			b := deciding(OutcomeApproved, nil)
			f := newFixture(t, fixtureOptions{gate: Options{Mode: ModeBrowser, Browser: b}})
			serverAsked := countServerElicitations(f.srv)
			a := answering("decline", nil) // a client that would decline: it is not asked
			cs := f.connect(v, a.options())

			res := call(t, cs, "rm", map[string]any{"name": "orders"})

			if res.IsError || text(res) != "ran orders" {
				t.Fatalf("result = %q (isError %v), want the command's output", text(res), res.IsError)
			}
			if n := f.ran.Load(); n != 1 {
				t.Errorf("the command ran %d times, want 1", n)
			}
			if n := len(a.asked()); n != 0 || serverAsked.Load() != 0 {
				t.Errorf("the client was asked %d times and sent %d elicitations, want none", n, serverAsked.Load())
			}
			shown := b.requests()
			if len(shown) != 1 {
				t.Fatalf("the browser was asked %d times, want 1", len(shown))
			}
			got := shown[0]
			if got.Tool != "rm" || got.CommandLine != "fixture rm -- orders" || got.Trigger != "ai:confirm" || got.Server != "fixture-server" {
				t.Errorf("shown %+v, want the tool, command line, trigger and server of the call", got)
			}
			if !strings.Contains(got.Client, "test-client v0.0.1") {
				t.Errorf("shown client %q does not name the client", got.Client)
			}
			if len(got.Caller) != 64 || strings.Contains(got.Caller, "session") {
				t.Errorf("caller %q, want a digest of the client's identity for the page's bounds", got.Caller)
			}
			if d := f.last(); d.Code != CodeApproved || d.Via != viaBrowser || d.Nonce != got.ID {
				t.Errorf("decision = %+v, want approved via the browser with the approval's id", d)
			}
		})
	}
}

func TestEveryBrowserEndingButApprovalRefusesAndDoesNotRun(t *testing.T) {
	cases := []struct {
		outcome Outcome
		err     error
		code    Code
		want    string
	}{
		{OutcomeDenied, nil, CodeDeclined, "the user declined; do not retry"},
		{OutcomeClosed, nil, CodeCancelled, "dismissed the approval request"},
		{OutcomeReused, nil, CodeCancelled, "its page was opened twice"},
		{OutcomeTimedOut, nil, CodeTimeout, "did not answer the approval request within 50s"},
		{OutcomeCancelled, nil, CodeCancelled, "dismissed the approval request"},
		{"", errors.New("no opener"), CodeError, "asking the user for approval failed"},
		{"", fmt.Errorf("%w: xdg-open: exit status 3", ErrNotShown), CodeError, "could not be opened in the user's browser, so the command cannot be approved now; do not retry"},
		{"", fmt.Errorf("showing: %w", &TooManyWaiting{Limit: 64, PerClient: true}), CodeTooMany,
			"Not run: too many approvals are waiting for this client (64, the most one client may have waiting); answer or let some expire, then call again."},
		{"", &TooManyWaiting{Limit: 1024}, CodeTooMany, "too many approvals are waiting (1024, the most the approval page holds for all clients)"},
		{Outcome("maybe"), nil, CodeError, "asking the user for approval failed"},
	}
	for _, c := range cases {
		t.Run(string(c.code)+"/"+string(c.outcome), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{gate: Options{Mode: ModeBrowser, Browser: deciding(c.outcome, c.err)}})
			cs := f.connect(mrtrVersion, nil)
			f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), c.code, c.want)
			if d := f.last(); d.Via != viaBrowser || d.Nonce == "" {
				t.Errorf("decision %+v does not say it was asked in the browser", d)
			}
		})
	}
}

func TestElicitOrBrowserAsksTheClientWhenItCan(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			b := deciding(OutcomeApproved, nil)
			f := newFixture(t, fixtureOptions{gate: Options{Mode: ModeElicitOrBrowser, Browser: b}})
			a := answering("decline", nil)
			cs := f.connect(v, a.options())

			f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeDeclined, "declined")
			if n := len(a.asked()); n != 1 {
				t.Errorf("the client was asked %d times, want 1", n)
			}
			if n := len(b.requests()); n != 0 {
				t.Errorf("a decline through the client fell back to the browser (%d asks)", n)
			}
		})
	}
}

func TestElicitOrBrowserAsksInTheBrowserWhenTheClientCannot(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			b := deciding(OutcomeApproved, nil)
			f := newFixture(t, fixtureOptions{gate: Options{Mode: ModeElicitOrBrowser, Browser: b}})
			cs := f.connect(v, nil) // declares no elicitation

			res := call(t, cs, "rm", map[string]any{"name": "orders"})
			if res.IsError || f.ran.Load() != 1 || len(b.requests()) != 1 {
				t.Fatalf("result %q, ran %d, browser asked %d times; want it asked once and run once", text(res), f.ran.Load(), len(b.requests()))
			}
		})
	}
	t.Run("stateless HTTP on an older version", func(t *testing.T) {
		b := deciding(OutcomeApproved, nil)
		f := newFixture(t, fixtureOptions{gate: Options{Mode: ModeElicitOrBrowser, Browser: b}})
		a := answering("accept", map[string]any{"approve": true})
		cs := connectClient(t, &mcp.StreamableClientTransport{Endpoint: f.serveHTTP(true)}, legacyVersion, a.options())

		res := call(t, cs, "rm", map[string]any{"name": "orders"})
		if res.IsError || f.ran.Load() != 1 || len(b.requests()) != 1 || len(a.asked()) != 0 {
			t.Fatalf("result %q, ran %d, browser asked %d, client asked %d; want the browser asked and the call run", text(res), f.ran.Load(), len(b.requests()), len(a.asked()))
		}
	})
}

func TestBrowserApprovalShowsHostileTextEscaped(t *testing.T) {
	b := deciding(OutcomeDenied, nil)
	f := newFixture(t, fixtureOptions{gate: Options{Mode: ModeBrowser, Browser: b, ServerName: "srv\x1b[31m"}})
	cs := f.connect(mrtrVersion, nil)
	call(t, cs, "rm", map[string]any{"name": "a\u202eb\nc"})
	got := b.requests()[0]
	if got.CommandLine != `fixture rm -- a\u{202e}b\nc` || got.Server != `srv\x1b[31m` {
		t.Errorf("shown command %q, server %q: want them escaped as in the prompt", got.CommandLine, got.Server)
	}
}

func TestWaitingInTheBrowserSendsProgressAndTheCancelledCallDoesNotRun(t *testing.T) {
	progressed := make(chan string, 16)
	asked := make(chan struct{})
	b := &fakeBrowser{decide: func(ctx context.Context, r PageRequest) (Outcome, error) {
		close(asked)
		<-ctx.Done() // waits until the call is cancelled
		return OutcomeCancelled, nil
	}}
	f := newFixture(t, fixtureOptions{gate: Options{Mode: ModeBrowser, Browser: b}})
	cs := f.connect(mrtrVersion, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progressed <- req.Params.Message
		},
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "rm", Arguments: map[string]any{"name": "orders"}}
		p.SetProgressToken("wait-1")
		_, err := cs.CallTool(ctx, p)
		done <- err
	}()
	<-asked
	msg := <-progressed
	if !strings.Contains(msg, "approve the command in their browser") || !strings.Contains(msg, "left") {
		t.Errorf("progress message %q does not say the call waits in the browser", msg)
	}
	cancel()
	<-done
	// The server ends the call once it sees the cancellation.
	if d := <-f.decided; d.Code != CodeCancelled || d.Via != viaBrowser {
		t.Errorf("decision = %+v, want cancelled in the browser", d)
	}
	if n := f.ran.Load(); n != 0 {
		t.Errorf("the cancelled call ran %d times", n)
	}
}

func TestBrowserModeNeedsABrowserAndModesAreChecked(t *testing.T) {
	if _, err := NewGate(Options{Mode: ModeBrowser}); err == nil {
		t.Error("NewGate accepted browser mode without a browser")
	}
	if _, err := NewGate(Options{Mode: "email"}); err == nil || !strings.Contains(err.Error(), "elicit, browser, elicit-or-browser") {
		t.Errorf("NewGate(mode email) = %v, want an error listing the modes", err)
	}
}

func TestTheClientsOwnNameIsShownBounded(t *testing.T) {
	b := deciding(OutcomeDenied, nil)
	f := newFixture(t, fixtureOptions{gate: Options{Mode: ModeBrowser, Browser: b}})
	long := strings.Repeat("x", 5000)
	cs := testsupport.Connect(t, f.srv, mcp.NewClient(&mcp.Implementation{Name: long, Version: "1"}, nil), mrtrVersion)
	call(t, cs, "rm", map[string]any{"name": "orders"})
	if got := b.requests()[0].Client; len([]rune(got)) > maxClientLabel || !strings.HasPrefix(got, "xxxx") || !strings.HasSuffix(got, "…") {
		t.Errorf("shown client is %d runes: %.40q", len([]rune(got)), got)
	}
}

// namedBrowser is a fakeBrowser that names who decides on its pages.
type namedBrowser struct{ *fakeBrowser }

func (namedBrowser) Approver() string { return "local user" }

// signedInBrowser is a namedBrowser whose page tells people apart, and
// knows who approved only the approvals it decided.
type signedInBrowser struct {
	namedBrowser
	who string
}

func (b signedInBrowser) ApproverOf(id string) string {
	if rs := b.requests(); len(rs) == 0 || rs[len(rs)-1].ID != id {
		return ""
	}
	return b.who
}

func TestBrowserApprovalNamesItsApprover(t *testing.T) {
	tests := []struct {
		name  string
		asker Asker
		want  string
	}{
		{"named by the page", namedBrowser{deciding(OutcomeApproved, nil)}, "local user"},
		{"unnamed", deciding(OutcomeApproved, nil), viaBrowser},
		{"denied names nobody", namedBrowser{deciding(OutcomeDenied, nil)}, ""},
		{"the person signed in on the page", signedInBrowser{namedBrowser{deciding(OutcomeApproved, nil)}, "bob"}, "bob"},
		{"a page that cannot say who falls back to its name", signedInBrowser{namedBrowser{deciding(OutcomeApproved, nil)}, ""}, "local user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{gate: Options{Mode: ModeBrowser, Browser: tt.asker}})

			call(t, f.connect(mrtrVersion, nil), "rm", map[string]any{"name": "orders"})

			if d := f.last(); d.Approver != tt.want {
				t.Errorf("approver = %q (decision %s), want %q", d.Approver, d.Code, tt.want)
			}
		})
	}
}
