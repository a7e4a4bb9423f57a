// Package browser asks a person to approve a gated call in their web
// browser, for clients that cannot ask through MCP elicitation (Claude
// Desktop declares none, Cursor drops it over stdio, Codex auto-declines).
//
// There are two ways to reach the person:
//
//   - [Local], for a server on the person's own machine (stdio, or HTTP
//     bound to loopback without an approver token): a loopback listener
//     that is open only while an approval is pending, and a page opened in
//     the person's browser through an opener command (xdg-open, open). The
//     opener runs at most once a DefaultOpenEvery and not while a page of
//     the listener is open: that page announces the approvals that come,
//     and the list at / shows them all, each opening its own page.
//   - [Shared], for a shared HTTP server: the page lives under a path of
//     the server (/approvals), lists every pending approval of the Store
//     (shared by replicas), ListPage at a time, and is reachable only with
//     the approver token, or by people signed in with the server's OAuth
//     authorization server, never with the clients' bearer token.
//
// Both bound the approvals waiting in the process, per client
// (DefaultPendingPerClient) and in all (DefaultPendingTotal), and refuse
// one over at once with [elicit.TooManyWaiting]: a flood of calls from
// one client neither buries the person's real request nor exhausts the
// process or its store.
//
// Both implement [elicit.Asker]: Ask shows one [Request] and blocks until
// the person decides, the deadline passes or the call is cancelled. Only
// an explicit click on Approve yields [Approved]; everything else refuses.
// Approve buttons take clicks only a second after their page loads, so a
// click meant for what was under the pointer before (the list before its
// refresh moved a row, another window before the page opened) approves
// nothing; the pages need their script to approve.
//
// The strings of a Request are shown as given (HTML-escaped by the page):
// the caller escapes them for display exactly as in its elicitation prompt,
// so the page and the prompt read the same. What a caller left (or a
// store's entry written by another program carries) is neutralised all
// the same: controls, bidirectional overrides and invalid UTF-8 are shown
// as \xNN or \u{...}, and every field but the command line, which is
// what the person approves and is shown whole, is cut at 256 runes.
//
// # What the local page defends against
//
// The model, the client and the commands fisk-mcp serves must not be able
// to approve. They can read what any process of the machine can: the
// opener's command line in /proc (and so the page's URL), and they can
// connect to 127.0.0.1. So the URL carries only a one-time ticket
// (256 random bits): the first GET exchanges it for an HttpOnly,
// SameSite=Strict cookie scoped to the approval's path and a CSRF token
// embedded in the page, and sends the browser on to the address without
// it. A second use of the ticket cancels the approval (Reused): whoever
// was first, the person sees that someone else held the link. A decision
// needs the cookie, the CSRF token, an Origin of the listener itself and
// (when sent) Sec-Fetch-Site same-origin; the Host must be the listener's
// address (no DNS rebinding); the page cannot be framed, loads nothing
// from elsewhere and runs only its own nonce-tagged script.
//
// The exchange also gives a list cookie (Path /, HttpOnly, SameSite=Strict)
// that opens the list of what is pending and, from it, the page of an
// approval nobody opened yet, as that approval's ticket would; opening it
// a second time is a second use. A second use of the ticket that gave the
// list cookie cancels, besides its own approval, those opened from that
// list, and the cookie opens nothing more: whoever was first may hold it.
//
// A process of another user can read the ticket from /proc too, and race
// the browser to it. It gets nothing: the listener serves only
// connections whose socket belongs to the user fisk-mcp runs as (the
// kernel says whose: /proc/net/tcp on Linux, lsof on macOS), and answers
// any other with a refusal that uses up nothing, however slow the
// person's browser is to arrive. Where the owner cannot be told, the page
// is not shown at all, and the gate says to approve another way.
//
// Against a process of the same user, an Approve posted within Hold
// (DefaultHold, 1.5 s) of the exchange takes effect only once Hold has
// passed with no second use of the ticket; the browser's own GET arriving
// meanwhile turns the outcome into Reused. That defends only when the
// browser reaches the page within Hold of the thief. It is not a boundary:
// a process running as the same user can also drive the browser (its
// debugging port, synthetic input), read its cookie store or fisk-mcp's
// memory, or replace the opener. Such a process is already outside what
// any approval prompt can contain; run untrusted commands as another user
// or in a sandbox, and do not let an agent run commands as the person
// without asking.
//
// The ticket, cookie and CSRF token never appear in a log line, an error
// or an Outcome; an opener's failure is reported with the URL redacted.
//
// # What the shared page defends against
//
// The shared page is reached over the server's own listener, so its
// security is the transport's (use TLS) plus the approver token: a person
// signs in with it and gets a session cookie (HttpOnly, SameSite=Strict,
// Secure over TLS, 12 h) signed with a key derived from the token, which
// every replica holding the same token accepts. Signing out makes the
// browser forget the cookie; being stateless, the session itself lasts
// until it expires or the token changes. The page never reads the
// Authorization header: a client's bearer token approves nothing, so the
// person running the agent and the person approving can differ.
//
// With [SignIn] (a server with an OAuth issuer) there is no approver
// token: the page is an OAuth client of the issuer, and a person signs in
// through the authorization code flow with PKCE S256, state and nonce.
// The sign-in under way lives in a cookie (SameSite=Lax, for the return
// from the issuer's site) holding only a random secret, from which the
// state, nonce and verifier are derived, signed, and used once. The
// person is the caller the access token names, checked by the server's
// own identity Resource; the ID token must carry the sign-in's nonce. The
// session cookie then holds who they are and the claims a policy reads,
// signed, never a token. Each pending approval is offered only to those
// the server's rule lets decide it (the policy's approve action, with the
// call's caller); a decision posted by anyone else is refused and changes
// nothing.
package browser

import (
	"context"
	"errors"
	"time"

	"github.com/fisk-mcp/fisk-mcp/elicit"
)

// The approval and its outcome are the gate's ([elicit.Asker]): the page
// implements what the gate asks through. These are their names here.
type (
	// Request is one approval to show.
	Request = elicit.PageRequest
	// Outcome is how an approval ended.
	Outcome = elicit.Outcome
)

// The outcomes, as [elicit.Outcome] documents them.
const (
	Approved  = elicit.OutcomeApproved
	Denied    = elicit.OutcomeDenied
	Closed    = elicit.OutcomeClosed
	Reused    = elicit.OutcomeReused
	TimedOut  = elicit.OutcomeTimedOut
	Cancelled = elicit.OutcomeCancelled
)

var (
	_ elicit.Asker = (*Local)(nil)
	_ elicit.Asker = (*Shared)(nil)
)

// Pending is an approval waiting in a Store.
type Pending struct {
	Request
	// Created is when the approval was put in the store.
	Created time.Time
}

// Store holds the pending approvals of a Shared page, so that with
// replicas any replica's page lists and decides them. Implementations are
// safe for concurrent use. MemoryStore is for one process; package
// browser/natspending shares one through NATS JetStream key-value.
type Store interface {
	// Put records a new pending approval. Its ID must be new.
	Put(ctx context.Context, p Pending) error
	// List returns the approvals still pending (undecided and not yet past
	// their deadline), oldest first.
	List(ctx context.Context) ([]Pending, error)
	// Decide records the outcome of a pending approval. Only the first
	// decision counts: ok is false when the approval was already decided,
	// deleted or never existed.
	Decide(ctx context.Context, id string, o Outcome) (ok bool, err error)
	// Wait blocks until the approval is decided and returns the outcome,
	// or returns ctx's error.
	Wait(ctx context.Context, id string) (Outcome, error)
	// Delete forgets an approval, decided or not.
	Delete(ctx context.Context, id string) error
}

// ApproverStore is a Store that keeps, with a decision, who took it, so
// that the replica whose call waits can name the person who decided on
// another replica's page. MemoryStore and natspending's Store are.
type ApproverStore interface {
	Store
	// DecideBy is Decide, recording by (the subject of the person signed
	// in) as who decided.
	DecideBy(ctx context.Context, id string, o Outcome, by string) (ok bool, err error)
	// DecidedBy returns who decided id; "" when nobody was named, or it
	// is not decided or not held.
	DecidedBy(ctx context.Context, id string) (string, error)
}

// ErrUnknown is returned (wrapped) by a Store for an ID it does not hold.
var ErrUnknown = errors.New("no such pending approval")
