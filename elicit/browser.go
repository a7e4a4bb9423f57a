package elicit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/progress"
	"github.com/fisk-mcp/fisk-mcp/internal/visible"
)

// Mode is how the gate reaches the person.
type Mode string

const (
	// ModeElicit asks through the client's elicitation and refuses when the
	// client cannot ask. The default.
	ModeElicit Mode = "elicit"
	// ModeBrowser always asks in the person's browser, never through the
	// client: for clients that declare elicitation but drop or auto-decline
	// it.
	ModeBrowser Mode = "browser"
	// ModeElicitOrBrowser asks through the client when it can and in the
	// browser when it cannot. A decline through the client is final.
	ModeElicitOrBrowser Mode = "elicit-or-browser"
)

// Modes lists the modes, for help texts and errors.
var Modes = []Mode{ModeElicit, ModeBrowser, ModeElicitOrBrowser}

// ParseMode reads a mode's name; "" is ModeElicit.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return ModeElicit, nil
	}
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("approval %q is not one of %s", s, strings.Join(names, ", "))
}

// UsesBrowser reports whether the mode may ask in the browser.
func (m Mode) UsesBrowser() bool { return m == ModeBrowser || m == ModeElicitOrBrowser }

// DefaultBrowserTimeout is how long an approval in the browser waits by
// default. The call waits inside the tools/call request, and the
// TypeScript SDK, which most clients use, fails a request after
// ClientRequestTimeout unless told otherwise: the approval must be decided
// before that, with time left to run the command.
const DefaultBrowserTimeout = 50 * time.Second

// ClientRequestTimeout is the request timeout of the TypeScript SDK's
// client by default. A wait in the browser longer than this outlives the
// request of such a client: its person approves a call the client has
// already given up on.
const ClientRequestTimeout = 60 * time.Second

// DefaultWaitingInterval is how often a call waiting in the browser tells
// a client that sent a progress token that it is still waiting.
const DefaultWaitingInterval = 5 * time.Second

// useBrowser reports whether this call is asked in the browser: always in
// ModeBrowser; in ModeElicitOrBrowser when the client cannot be asked.
func (g *Gate) useBrowser(req *mcp.CallToolRequest, r *round) bool {
	switch g.mode {
	case ModeBrowser:
		return true
	case ModeElicitOrBrowser:
		return !canAsk(req, r)
	}
	return false
}

// canAsk reports whether the client of req can be asked through
// elicitation, by the rules ask applies.
func canAsk(req *mcp.CallToolRequest, r *round) bool {
	caps := req.ClientCapabilities()
	if serverElicits(req.Session) {
		if cannotReachClient(req) || r == nil {
			return false
		}
		caps = req.Session.InitializeParams().Capabilities
	}
	return canElicitForm(caps)
}

// askBrowser asks the person in the browser and waits for their decision.
// Unlike an elicitation, nothing crosses the client: the call blocks until
// the person decides, the wait ends or the call is cancelled, telling a
// client that sent a progress token that it waits. The approval is bound to
// this very call, prepared once: what the page showed is what runs, and the
// server's check right before the run refuses a tool that changed
// meanwhile.
func (g *Gate) askBrowser(ctx context.Context, req *mcp.CallToolRequest, q question, p Prompt) Decision {
	nonce, err := newNonce()
	if err != nil {
		return failed(err.Error())
	}
	wait := g.browserTimeout
	trigger := p.Trigger
	if trigger == "" {
		trigger = "(none given)"
	}
	br := PageRequest{
		ID:          nonce,
		Server:      escape(g.server),
		Tool:        escape(q.binding.Tool),
		CommandLine: escape(p.CommandLine),
		Trigger:     escape(trigger),
		Client:      escape(askedBy(req)),
		Caller:      hashString(p.Client),
		CallerID:    userID(req),
		Deadline:    g.now().Add(wait),
	}
	stop := g.tellWaiting(ctx, req, br.Deadline)
	outcome, err := g.browser.Ask(ctx, br)
	stop()
	d := browserDecision(ctx, outcome, err, wait)
	d.Nonce, d.Via = nonce, viaBrowser
	if d.Approved() {
		d.Approver = viaBrowser
		if n, ok := g.browser.(ApproverNamer); ok {
			d.Approver = n.Approver()
		}
		if a, ok := g.browser.(ApproverOf); ok {
			if who := a.ApproverOf(nonce); who != "" {
				d.Approver = who
			}
		}
	}
	return d
}

// viaBrowser is Decision.Via of an approval asked in the browser.
const viaBrowser = "browser"

// browserDecision is the decision an approval in the browser ended with.
// The texts are the ones the same ending has through elicitation.
func browserDecision(ctx context.Context, o Outcome, err error, wait time.Duration) Decision {
	if tm := (*TooManyWaiting)(nil); errors.As(err, &tm) {
		return Decision{Code: CodeTooMany, Detail: tm.Error(), Message: "Not run: " + tm.Error() + "."}
	}
	if errors.Is(err, ErrNotShown) {
		return Decision{Code: CodeError, Detail: err.Error() + "; set --approval-opener to a command that opens a URL in this user's browser, or approve through the client (--approval elicit)",
			Message: "Not run: the approval page could not be opened in the user's browser, so the command cannot be approved now; do not retry: tell the user that the server's operator must fix how fisk-mcp opens the browser."}
	}
	if err != nil {
		return failed("asking in the browser failed: " + err.Error())
	}
	switch o {
	case OutcomeApproved:
		return approved()
	case OutcomeDenied:
		return declined("denied in the browser")
	case OutcomeClosed:
		d := cancelled()
		d.Detail = "the approval page was closed without a decision"
		return d
	case OutcomeReused:
		return Decision{Code: CodeCancelled, Detail: "the approval page's one-time link was used twice, so someone other than the user's browser may hold it",
			Message: "Not run: the approval was cancelled because its page was opened twice; you may ask again by calling the tool again, and the user should open only the page fisk-mcp opens."}
	case OutcomeTimedOut:
		return timedOut(wait)
	case OutcomeCancelled:
		d := cancelled()
		d.Detail = "the call was cancelled while the user was being asked in the browser"
		if cause := context.Cause(ctx); cause != nil {
			d.Detail += ": " + cause.Error()
		}
		return d
	}
	return failed(fmt.Sprintf("the browser approval ended with an unknown outcome %q", o))
}

// askedBy says who made the call, as the page shows it: the client as it
// introduced itself and the start of its session's id.
func askedBy(req *mcp.CallToolRequest) string {
	name := "an unnamed client"
	if info := req.ClientInfo(); info != nil && info.Name != "" {
		name = info.Name
		if info.Version != "" {
			name += " " + info.Version
		}
		name = visible.Cut(name, maxClientLabel)
	}
	if id := req.Session.ID(); id != "" {
		// Enough to tell sessions apart; the whole id, with the bearer
		// token, would reach the session, and the page's reader need not
		// hold that.
		if len(id) > 8 {
			id = id[:8] + "…"
		}
		name += " (session " + id + ")"
	}
	return name
}

// maxClientLabel bounds, in runes, the client's own name and version on
// the page: the client chooses them, and may choose them long.
const maxClientLabel = 120

// tellWaiting sends a progress notification at once and then every
// waitingInterval while the call waits in the browser, when the client
// sent a progress token: the time waited of the time allowed, and the time
// left. The message names no link and no ticket: the model must not be
// able to approve. stop waits for the reporter, so no notification
// follows the result.
func (g *Gate) tellWaiting(ctx context.Context, req *mcp.CallToolRequest, deadline time.Time) (stop func()) {
	total := deadline.Sub(g.now()).Seconds()
	return progress.Report(ctx, req, progress.Ticker{
		Every:  g.waitingInterval,
		AtOnce: true,
		Next: func() (float64, float64, string) {
			left := max(deadline.Sub(g.now()), 0)
			return total - left.Seconds(), total,
				fmt.Sprintf("waiting for the user to approve the command in their browser (%s left)", left.Round(time.Second))
		},
	})
}
