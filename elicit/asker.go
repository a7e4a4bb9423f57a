package elicit

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Asker shows an approval to a person outside the client, and waits for
// their decision: package browser's approval pages implement it, and the
// gate asks through it in the modes that use the browser. The gate owns
// the contract, so that the page builds on the gate and not the reverse.
type Asker interface {
	// Ask shows r and blocks until it has an outcome. An error means the
	// person could not be asked at all (the listener could not be opened,
	// the opener failed, the store is unreachable); the call is refused.
	Ask(ctx context.Context, r PageRequest) (Outcome, error)
}

// ApproverNamer is an Asker that names, for the call log, who decides on
// its pages: the person at the machine ("local user"), or whoever holds a
// shared page's approver token ("approver token"). The name is a kind of
// approver, never a secret.
type ApproverNamer interface {
	Approver() string
}

// ApproverOf is an Asker whose page tells the people who approve apart
// (they sign in with the authorization server): ApproverOf names who
// approved the approval of ID id once its Ask has returned
// OutcomeApproved (their subject), "" when the page cannot say (another
// replica's page decided). It answers once per approval. The gate prefers
// it to ApproverNamer.
type ApproverOf interface {
	ApproverOf(id string) string
}

// ErrNotShown is wrapped by an Asker's error when the page could not be
// put in front of the person (the opener failed): asking again would fail
// the same way until the operator fixes it, so the model is not told to
// retry.
var ErrNotShown = errors.New("the approval page could not be shown in the user's browser")

// PageRequest is one approval to show. Its strings are escaped for
// display exactly as in the elicitation prompt, so the page and the prompt
// read the same.
type PageRequest struct {
	// ID names the approval in logs and in the page's store: the gate's
	// nonce. It is not a secret and never approves anything.
	ID string
	// Server is the server's name, as in the prompt.
	Server string
	// Tool is the tool the call runs.
	Tool string
	// CommandLine is the exact command that will run, escaped and redacted
	// as in the prompt.
	CommandLine string
	// Trigger is the tag that gated the tool (e.g. "ai:confirm").
	Trigger string
	// Client says who asked: the client's name and version as it introduced
	// itself, and its session.
	Client string
	// Caller tells clients apart for the page's bounds on approvals
	// waiting: a digest of [Prompt.Client], the same for every call of one
	// client. It is not shown.
	Caller string
	// CallerID is the identity of the call's caller (the SDK's
	// auth.TokenInfo.UserID, issuer#subject), "" for a caller without
	// one: a page that signs people in asks its policy whether the person
	// may approve this caller's call, and refuses their own.
	CallerID string
	// Deadline is when the approval times out.
	Deadline time.Time
}

// Outcome is how an approval asked through an Asker ended.
type Outcome string

const (
	// OutcomeApproved: the person clicked Approve. The only outcome that
	// runs.
	OutcomeApproved Outcome = "approved"
	// OutcomeDenied: the person clicked Deny.
	OutcomeDenied Outcome = "denied"
	// OutcomeClosed: the page was closed without a decision.
	OutcomeClosed Outcome = "closed"
	// OutcomeReused: the page's one-time ticket was used a second time, so
	// someone other than the person's browser may hold it; the approval is
	// cancelled.
	OutcomeReused Outcome = "reused"
	// OutcomeTimedOut: nobody decided before the deadline.
	OutcomeTimedOut Outcome = "timeout"
	// OutcomeCancelled: the call was cancelled (its context ended) while
	// waiting.
	OutcomeCancelled Outcome = "cancelled"
)

// TooManyWaiting is an Asker's refusal to show an approval because as
// many as it holds are waiting already: for this client (PerClient), or
// in all. The call is refused at once, never queued; the text says the
// bound and what to do.
type TooManyWaiting struct {
	Limit     int
	PerClient bool
}

func (e *TooManyWaiting) Error() string {
	if e.PerClient {
		return fmt.Sprintf("too many approvals are waiting for this client (%d, the most one client may have waiting); answer or let some expire, then call again", e.Limit)
	}
	return fmt.Sprintf("too many approvals are waiting (%d, the most the approval page holds for all clients); answer or let some expire, then call again", e.Limit)
}
