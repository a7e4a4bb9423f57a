package elicit

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Code is the short, stable name of a gate decision, meant for logs and
// metrics.
type Code string

const (
	// CodeApproved: the person explicitly approved exactly this call.
	CodeApproved Code = "approved"
	// CodePending: the person is being asked; the handler must return the
	// input-required result the gate produced.
	CodePending Code = "pending"
	// CodeDeclined: the person said no (decline, or approve=false).
	CodeDeclined Code = "declined"
	// CodeCancelled: the person dismissed the question without deciding.
	CodeCancelled Code = "cancelled"
	// CodeNoCapability: the session cannot ask a person (no form
	// elicitation, or a stateless HTTP session on an older protocol).
	CodeNoCapability Code = "no_capability"
	// CodeExpired: the answer arrived after the signed state expired.
	CodeExpired Code = "expired"
	// CodeForged: the state is not one this server signed, or the answer
	// does not answer a question this server asked on this call.
	CodeForged Code = "forged"
	// CodeReplayed: the state was already used once.
	CodeReplayed Code = "replayed"
	// CodeMismatch: the retry's tool, arguments, prompt, session or caller
	// differ from what the person was shown and whom it was asked for.
	CodeMismatch Code = "mismatch"
	// CodeToolChanged: the tool's definition or the program behind it
	// (Prompt.Binding) changed between the question and the answer,
	// typically because the application was reloaded.
	CodeToolChanged Code = "tool_changed"
	// CodeTimeout: no answer within the gate's timeout (older protocols,
	// where the server waits).
	CodeTimeout Code = "timeout"
	// CodeUnavailable: the record of used approvals (the ReplayStore)
	// could not record the answer, so its single use cannot be guaranteed.
	CodeUnavailable Code = "unavailable"
	// CodeTooLong: the command line is over MaxShownCommandLine, more
	// than a person can be asked to read; nobody was asked.
	CodeTooLong Code = "too_long"
	// CodeTooMany: as many approvals as the browser's page holds are
	// waiting already (see [TooManyWaiting]); nobody was asked.
	CodeTooMany Code = "too_many_waiting"
	// CodeError: asking failed, the answer was not a yes/no, or the gate
	// itself could not work.
	CodeError Code = "error"
)

// Decision is what the gate decided about one tools/call round.
type Decision struct {
	// Code is the short name of the decision.
	Code Code
	// Message is the text the model reads when the call is refused (and a
	// short description otherwise). It says whether asking again makes sense.
	Message string
	// Detail is for the operator's log: the underlying reason, e.g. an
	// SDK error or which binding did not match. May be empty.
	Detail string
	// Nonce names the approval the decision is about: the question asked
	// (a pending decision) or the one an authentic answer refers to. It
	// links the log lines of the question and of its answered retry. ""
	// when no question was asked or the state was not authentic.
	Nonce string
	// Reasked is set when the retry's answer did not answer the question
	// asked (Code says why: forged, expired) and the gate asked a fresh
	// question instead, whose nonce is Nonce. Nothing ran; as for a pending
	// decision, the handler returns the gate's input-required result.
	Reasked bool
	// Via is "browser" when the person was asked in the browser, "" when
	// through the client's elicitation (or not at all).
	Via string
	// Approver says who approved an approved call, for the log:
	// ApproverCaller through elicitation (the caller the approval was
	// bound to answered it), or in the browser who its Asker names (see
	// [ApproverOf] and [ApproverNamer]), "browser" when it names nobody.
	// "" for a
	// decision that is not an approval.
	Approver string
}

// ApproverCaller is Decision.Approver of an approval answered through the
// client's elicitation: the person behind the client, whose identity the
// approval was bound to. A caller that knows that identity (an OAuth
// subject) logs it instead.
const ApproverCaller = "client user"

// Approved reports whether the command may run.
func (d Decision) Approved() bool { return d.Code == CodeApproved }

// Pending reports whether the person is being asked, for the first time or
// again: the handler must return the gate's input-required result as is.
func (d Decision) Pending() bool { return d.Code == CodePending || d.Reasked }

// Refused reports whether the call ended without running the command.
func (d Decision) Refused() bool { return !d.Approved() && !d.Pending() }

// LogValue makes a Decision one structured slog group.
func (d Decision) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("code", string(d.Code))}
	if d.Detail != "" {
		attrs = append(attrs, slog.String("detail", d.Detail))
	}
	if d.Nonce != "" {
		attrs = append(attrs, slog.String("approval", d.Nonce))
	}
	if d.Reasked {
		attrs = append(attrs, slog.Bool("reasked", true))
	}
	if d.Via != "" {
		attrs = append(attrs, slog.String("via", d.Via))
	}
	if d.Approver != "" {
		attrs = append(attrs, slog.String("approver", d.Approver))
	}
	return slog.GroupValue(attrs...)
}

// ErrInvalidState is what the error Check returns for a requestState this
// server did not issue wraps; errors.Is tells it apart. The same error also
// wraps a [*jsonrpc.Error] with code invalid params, so a tools/call handler
// that returns it as its error answers with that JSON-RPC error: a genuine
// client never sends such a state, so it is a protocol error, not a result
// for the model. An expired state is not one: it is answered with a fresh
// question.
var ErrInvalidState = errors.New("the request state was not issued by this server")

// stateError is the error of a request whose state does not verify.
type stateError struct{ wire *jsonrpc.Error }

func invalidState(reason error) error {
	return &stateError{wire: &jsonrpc.Error{
		Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("invalid requestState: %v (%v); nothing ran. Call the tool again without requestState and inputResponses, so the user is asked.",
			ErrInvalidState, reason),
	}}
}

func (e *stateError) Error() string   { return e.wire.Message }
func (e *stateError) Unwrap() []error { return []error{ErrInvalidState, e.wire} }

// result is the isError tool result that carries a refusal to the model.
func (d Decision) result() *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: d.Message}},
	}
}

// The messages are written for the model: what happened, that the command
// did not run, and whether asking the person again is sensible.

func approved() Decision {
	return Decision{Code: CodeApproved, Message: "the user approved this command"}
}

func pending() Decision {
	return Decision{Code: CodePending, Message: "waiting for the user's approval"}
}

func declined(detail string) Decision {
	return Decision{Code: CodeDeclined, Detail: detail,
		Message: "Not run: the user declined; do not retry. The command needs the user's approval and they refused it."}
}

func cancelled() Decision {
	return Decision{Code: CodeCancelled,
		Message: "Not run: the user dismissed the approval request without deciding; you may ask again by calling the tool again."}
}

func noCapability() Decision {
	return Decision{Code: CodeNoCapability, Detail: "client did not declare form elicitation; --approval elicit-or-browser asks the person in the browser for such a client",
		Message: "Not run: this command needs a person's approval, but the connected client cannot ask a person (it does not support form elicitation), so the gated command cannot run here."}
}

func othersOnly() Decision {
	return Decision{Code: CodeNoCapability, Detail: "the policy lets no caller approve their own call of this tool, and no approvals page signs people in: serve with --oauth-issuer, --approvals-client-id and --approval browser (or elicit-or-browser) so someone else approves it on /approvals",
		Message: "Not run: this command needs approval by someone other than its caller, and this server cannot ask anyone else, so it cannot run here; do not retry."}
}

func statelessSession() Decision {
	return Decision{Code: CodeNoCapability, Detail: "stateless HTTP session on a protocol version older than 2026-07-28; serve without --stateless so such a client can be asked",
		Message: "Not run: this command needs a person's approval, but this server runs over stateless HTTP and cannot ask a person on the client's protocol version, so the gated command cannot run here."}
}

func expired(detail string) Decision {
	return Decision{Code: CodeExpired, Detail: detail,
		Message: "Not run: the approval arrived after it expired; you may ask again by calling the tool again."}
}

func forged(detail string) Decision {
	return Decision{Code: CodeForged, Detail: detail,
		Message: "Not run: the approval answer does not answer a question this server asked; call the tool again (without an answer) so the user is asked."}
}

func replayed() Decision {
	return Decision{Code: CodeReplayed, Detail: "nonce already used",
		Message: "Not run: this approval was already used once; call the tool again (without an answer) so the user is asked."}
}

func mismatch(detail string) Decision {
	return Decision{Code: CodeMismatch, Detail: detail,
		Message: "Not run: the approval was given for a different command or different arguments; call the tool again so the user is asked about this one."}
}

func toolChanged() Decision {
	return Decision{Code: CodeToolChanged, Detail: "the tool's binding differs from the one the user was asked about (the application was reloaded or its binary replaced)",
		Message: "Not run: the tool changed while the user was being asked (the application was reloaded or its program replaced), so the approval does not cover it; call the tool again so the user is asked about it as it is now."}
}

func timedOut(wait time.Duration) Decision {
	return Decision{Code: CodeTimeout, Detail: fmt.Sprintf("no answer within %s", wait),
		Message: fmt.Sprintf("Not run: the user did not answer the approval request within %s; you may ask again by calling the tool again.", wait)}
}

func tooLong(n int) Decision {
	return Decision{Code: CodeTooLong, Detail: fmt.Sprintf("command line of %d bytes", n),
		Message: fmt.Sprintf("Not run: the command line is %d bytes once escaped for display, more than the %d a person can be asked to approve; "+
			"pass less in one call (fewer list items, shorter values) and call the tool again.", n, MaxShownCommandLine)}
}

func failed(detail string) Decision {
	return Decision{Code: CodeError, Detail: detail,
		Message: "Not run: asking the user for approval failed; you may ask again by calling the tool again."}
}

func unavailable(err error) Decision {
	return Decision{Code: CodeUnavailable, Detail: err.Error(),
		Message: fmt.Sprintf("Not run: approvals are unavailable: %v; ungated tools still work. Call the tool again later so the user is asked, or tell the user that the server's operator must fix this.", err)}
}

func notYesNo(detail string) Decision {
	return Decision{Code: CodeError, Detail: detail,
		Message: "Not run: the approval answer was not a yes/no choice; you may ask again by calling the tool again."}
}

func misconfigured(detail string) Decision {
	return Decision{Code: CodeError, Detail: detail,
		Message: "Not run: this server cannot ask for approval on this connection because of its configuration, so the gated command cannot run here."}
}
