package elicit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/visible"
)

// DefaultTimeout is how long the gate waits for a person by default.
const DefaultTimeout = 2 * time.Minute

// DefaultServerName names the server in the prompt when Options has none.
const DefaultServerName = "fisk-mcp"

// multiRoundTripVersion is the first protocol version in which the client,
// not the server, performs the elicitation of a multi-round-trip call.
const multiRoundTripVersion = "2026-07-28"

// Options configures a Gate. The zero value is usable.
type Options struct {
	// ServerName is shown to the person; "" means DefaultServerName.
	ServerName string
	// Key signs request states. Nil means a random key for this process,
	// which is right for one process; replicas that must accept each
	// other's states (stateless HTTP behind a load balancer, where the
	// retry may reach another replica) share a key loaded with LoadKey.
	// Such replicas must also agree on ServerName and on the tools'
	// command lines, since the approval is bound to the exact prompt,
	// keep their clocks in step, since the expiry is absolute, and share
	// one Replay store, since single use is only as wide as the store.
	Key []byte
	// Timeout bounds the wait for a person; 0 means DefaultTimeout through
	// elicitation and DefaultBrowserTimeout in the browser.
	Timeout time.Duration
	// Mode is how the person is reached; "" means ModeElicit.
	Mode Mode
	// Browser asks in the person's browser. Required when Mode uses the
	// browser, ignored otherwise.
	Browser Asker
	// WaitingInterval is how often a call waiting in the browser sends a
	// progress notification; 0 means DefaultWaitingInterval.
	WaitingInterval time.Duration
	// Replay is the record of used request states. Nil means a
	// MemoryStore of this process, bounded by ReplayCapacity in all;
	// replicas sharing Key share a store instead (see ReplayStore).
	Replay ReplayStore
	// ReplayCapacity bounds the default MemoryStore; 0 means
	// DefaultReplayCapacity. Ignored when Replay is set.
	ReplayCapacity int
	// OnDecision, if set, is called with each decision the Middleware makes
	// on its own: the refusals on older protocol versions when the wait
	// timed out or asking failed, after which the tool handler is not called
	// again. Decisions that Check returns are not reported here; the caller
	// already has them.
	OnDecision func(ctx context.Context, r Refusal)
}

// Gate asks a person to approve gated tool calls and fails closed.
// It is safe for concurrent use; one Gate serves every session of a server.
type Gate struct {
	server     string
	signer     signer
	timeout    time.Duration
	replay     ReplayStore
	onDecision func(ctx context.Context, r Refusal)

	mode            Mode
	browser         Asker
	browserTimeout  time.Duration
	waitingInterval time.Duration

	// now and afterFunc are the clock; tests replace them.
	now       func() time.Time
	afterFunc func(d time.Duration, f func()) (stop func() bool)
}

// NewGate returns a gate. A supplied key must pass the same checks as one
// loaded by LoadKey.
func NewGate(o Options) (*Gate, error) {
	if o.Timeout < 0 {
		return nil, fmt.Errorf("approval timeout %s is negative", o.Timeout)
	}
	if o.ReplayCapacity < 0 {
		return nil, fmt.Errorf("replay capacity %d is negative", o.ReplayCapacity)
	}
	mode, err := ParseMode(string(o.Mode))
	if err != nil {
		return nil, err
	}
	if mode.UsesBrowser() && o.Browser == nil {
		return nil, fmt.Errorf("approval %s asks in the browser, but the gate was given no Asker (Options.Browser)", mode)
	}
	g := &Gate{
		server:          o.ServerName,
		timeout:         o.Timeout,
		onDecision:      o.OnDecision,
		mode:            mode,
		browser:         o.Browser,
		browserTimeout:  o.Timeout,
		waitingInterval: o.WaitingInterval,
		now:             time.Now,
		afterFunc: func(d time.Duration, f func()) func() bool {
			return time.AfterFunc(d, f).Stop
		},
	}
	if g.server == "" {
		g.server = DefaultServerName
	}
	if g.timeout == 0 {
		g.timeout = DefaultTimeout
	}
	if g.browserTimeout == 0 {
		g.browserTimeout = DefaultBrowserTimeout
	}
	if g.waitingInterval <= 0 {
		g.waitingInterval = DefaultWaitingInterval
	}
	g.replay = o.Replay
	if g.replay == nil {
		m, err := NewMemoryStore(MemoryOptions{Capacity: o.ReplayCapacity})
		if err != nil {
			return nil, err
		}
		g.replay = m
	}
	key := o.Key
	if key == nil {
		var err error
		if key, err = randomKey(); err != nil {
			return nil, err
		}
	} else if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("state key: %w", err)
	}
	g.signer = signer{key: append([]byte(nil), key...)}
	return g, nil
}

// Check gates one call of a tool that needs approval. The tools/call handler
// calls it on every round, after validating the arguments and before taking
// a concurrency slot or starting the command:
//
//   - (nil, approved, nil): the person approved exactly this call; run it.
//   - (result, pending, nil): return result as is; it asks the person, and
//     the call comes back with the answer (from the client on 2026-07-28,
//     from the SDK's middleware on older versions). A retry whose answer
//     does not answer the question asked (none, another question's, an
//     expired one) is pending too, asked afresh: its Decision says why
//     ([Decision.Reasked]).
//   - (result, refused, nil): return result as is; it is an isError result
//     whose text tells the model what happened and whether to ask again.
//   - (nil, refused, err): the request carried a requestState this server
//     did not issue (malformed, altered, signed with another key), which a
//     genuine client never sends. err wraps [ErrInvalidState] and a
//     JSON-RPC invalid-params error: return it as the handler's error.
//
// Check never runs anything. Through elicitation it never blocks on the
// person; a call asked in the browser (Options.Mode) blocks until the person
// decides there, the wait ends or ctx ends, and then is approved or
// refused: it is never pending.
func (g *Gate) Check(ctx context.Context, req *mcp.CallToolRequest, p Prompt) (*mcp.CallToolResult, Decision, error) {
	d, res, err := g.decide(ctx, req, p)
	switch {
	case err != nil:
		return nil, d, err
	case d.Approved():
		return nil, d, nil
	case d.Pending():
		return res, d, nil
	}
	return d.result(), d, nil
}

func (g *Gate) decide(ctx context.Context, req *mcp.CallToolRequest, p Prompt) (Decision, *mcp.CallToolResult, error) {
	if req == nil || req.Session == nil || req.Params == nil {
		return failed("gate called without a request, session or params"), nil, nil
	}
	if n := len(escape(p.CommandLine)); n > MaxShownCommandLine {
		return tooLong(n), nil, nil
	}
	tool := p.Tool
	if tool == "" {
		tool = req.Params.Name
	}
	args := p.Arguments
	if args == nil {
		args = req.Params.Arguments
	}
	argsHash, err := hashArguments(args)
	if err != nil {
		// The error quotes a duplicate key, which the caller chose.
		why := visible.Cut(err.Error(), maxCauseShown)
		return Decision{Code: CodeError, Detail: why,
			Message: fmt.Sprintf("Not run: the arguments cannot be bound to an approval (%s); send them as one JSON object without duplicate keys.", why)}, nil, nil
	}
	msg := message(g.server, tool, p)
	q := question{
		binding:     binding{Tool: tool, ToolBinding: hashString(p.Binding), Args: argsHash, Prompt: hashString(msg), Session: hashString(req.Session.ID()), Caller: callerHash(userID(req))},
		message:     msg,
		commandLine: p.CommandLine,
	}
	r, _ := ctx.Value(roundKey{}).(*round)
	if p.OthersOnly {
		if s, ok := g.browser.(SignsPeopleIn); ok && g.mode.UsesBrowser() && s.SignsPeopleIn() {
			return g.askBrowser(ctx, req, q, p), nil, nil
		}
		return othersOnly(), nil, nil
	}
	if g.mode == ModeBrowser {
		// The client is never asked, so nothing it sends is an answer.
		return g.askBrowser(ctx, req, q, p), nil, nil
	}
	if len(req.Params.InputResponses) == 0 && req.Params.RequestState == "" {
		if g.useBrowser(req, r) {
			return g.askBrowser(ctx, req, q, p), nil, nil
		}
		d, res := g.ask(req, q, r)
		return d, res, nil
	}
	d, again, err := g.judge(ctx, req, q.binding, r, p.Client)
	if err != nil || !again {
		return d, nil, err
	}
	d, res := g.askAgain(req, q, r, d)
	return d, res, nil
}

// question is what the person is asked about one call: the binding the
// approval will carry, the message shown and, for the middleware's report,
// the command line in it.
type question struct {
	binding     binding
	message     string
	commandLine string
}

// ask produces the first round: the question and its signed state.
func (g *Gate) ask(req *mcp.CallToolRequest, q question, r *round) (Decision, *mcp.CallToolResult) {
	caps := req.ClientCapabilities()
	legacy := serverElicits(req.Session)
	if legacy {
		if cannotReachClient(req) {
			return statelessSession(), nil
		}
		if r == nil {
			return misconfigured("elicit.Gate.Middleware is not installed: add it with Server.AddReceivingMiddleware, or clients on protocol versions before 2026-07-28 cannot be asked"), nil
		}
		// The SDK's ServerSession.Elicit consults the session's declaration.
		caps = req.Session.InitializeParams().Capabilities
	}
	if !canElicitForm(caps) {
		return noCapability(), nil
	}
	nonce, err := newNonce()
	if err != nil {
		return failed(err.Error()), nil
	}
	now := g.now()
	c := claims{binding: q.binding, Nonce: nonce, Issued: now.UnixMilli(), Expires: now.Add(g.timeout).UnixMilli()}
	state, err := g.signer.sign(c)
	if err != nil {
		return failed("signing request state: " + err.Error()), nil
	}
	if legacy && !r.arm(state, nonce, q.binding.Tool, q.commandLine, g.timeout, g.afterFunc) {
		return failed("the gate asked twice within one tools/call"), nil
	}
	d := pending()
	d.Nonce = nonce
	return d, &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{c.inputID(): elicitParams(q.message)},
		RequestState:  state,
	}
}

// askAgain answers a retry whose answer does not answer the question asked
// (refused says why) with a fresh question, as the protocol asks: a person
// who was slow, or a client that lost the question, is asked again instead
// of refused, and nothing runs without an answer to the question actually
// asked. On older protocol versions only a call's first pass may ask (the
// SDK invokes the handler again once, with the answer), so a later pass
// keeps the refusal.
func (g *Gate) askAgain(req *mcp.CallToolRequest, q question, r *round, refused Decision) (Decision, *mcp.CallToolResult) {
	if serverElicits(req.Session) && r != nil && !r.idle() {
		return refused, nil
	}
	d, res := g.ask(req, q, r)
	if !d.Pending() {
		return d, nil // nobody can be asked: that is the decision
	}
	if refused.Nonce != "" {
		refused.Detail += "; the answer was for approval " + refused.Nonce
	}
	refused.Detail += "; asked again"
	refused.Nonce, refused.Reasked = d.Nonce, true
	return refused, res
}

// judge decides a retry that carries an answer or a state. again reports a
// retry whose answer does not answer the question asked, which askAgain
// answers with a fresh question; err, a state this server did not issue.
func (g *Gate) judge(ctx context.Context, req *mcp.CallToolRequest, b binding, r *round, client string) (d Decision, again bool, err error) {
	state, responses := req.Params.RequestState, req.Params.InputResponses
	if state == "" {
		return forged("an answer arrived without request state"), true, nil
	}
	c, err := g.signer.verify(state)
	if err != nil {
		return forged(err.Error()), false, invalidState(err)
	}
	if len(responses) == 0 {
		d, again = forged("request state arrived without an answer"), true
	} else {
		d, again = g.judgeClaims(ctx, req, b, r, c, client)
	}
	d.Nonce = c.Nonce
	return d, again, nil
}

// judgeClaims decides a retry whose state is authentic, with claims c.
func (g *Gate) judgeClaims(ctx context.Context, req *mcp.CallToolRequest, b binding, r *round, c claims, client string) (d Decision, again bool) {
	responses := req.Params.InputResponses
	if serverElicits(req.Session) {
		if r == nil {
			return misconfigured("elicit.Gate.Middleware is not installed"), false
		}
		switch r.answer(req.Params.RequestState) {
		case answerLate:
			return timedOut(g.timeout), false
		case answerUnasked:
			return forged("on this protocol version the server asks; this tools/call carried an answer the server did not ask for within it"), true
		}
	}
	now := g.now()
	if isExpired(c.expiry(), now) {
		return expired(fmt.Sprintf("state expired at %s, answer arrived at %s", c.expiry().UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano))), true
	}
	if c.Tool == b.Tool && c.ToolBinding != b.ToolBinding {
		return toolChanged(), false
	}
	if d := c.binding.diff(b); d != "" {
		return mismatch(d), false
	}
	// Only the answer to the question asked is read. Answers under other
	// ids are ignored, as the protocol has a server do with what it does
	// not recognise: whatever they say, they approve nothing.
	resp, ok := responses[c.inputID()]
	if !ok {
		return forged(fmt.Sprintf("none of the %d answers is to the question asked, %q", len(responses), c.inputID())), true
	}
	answer, ok := resp.(*mcp.ElicitResult)
	if !ok || answer == nil {
		return forged(fmt.Sprintf("the answer is a %T, not an elicitation result", resp)), true
	}
	fresh, err := g.use(ctx, UsedState{Nonce: c.Nonce, Issued: c.issued(), Expires: c.expiry(), Now: now, Client: client})
	switch {
	case errors.Is(err, ErrIssuedBeforeStart):
		return expired(err.Error()), true
	case err != nil:
		return unavailable(err), false
	case !fresh:
		return replayed(), false
	}
	d = interpret(answer)
	if d.Approved() {
		// The answer came back with the caller the state is bound to.
		d.Approver = ApproverCaller
	}
	if n := len(responses) - 1; n > 0 {
		d.Detail = strings.TrimPrefix(d.Detail+"; ", "; ") + fmt.Sprintf("ignored %d answers to questions not asked", n)
	}
	return d, false
}

// interpret reads the person's answer: only accept with approve == true
// approves.
func interpret(a *mcp.ElicitResult) Decision {
	switch a.Action {
	case "accept":
		v, present := a.Content[approveField]
		yes, isBool := v.(bool)
		switch {
		case !present:
			return notYesNo("accepted without an approve field")
		case !isBool:
			return notYesNo(fmt.Sprintf("approve is %T, not a boolean", v))
		case !yes:
			return declined("accepted with approve=false")
		}
		return approved()
	case "decline":
		return declined("declined")
	case "cancel":
		return cancelled()
	}
	return notYesNo(fmt.Sprintf("unknown action %q", a.Action))
}

// userID is the identity of the caller of req, the SDK's
// auth.TokenInfo.UserID (set by an authenticating HTTP handler), or "".
func userID(req *mcp.CallToolRequest) string {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return ""
	}
	return req.Extra.TokenInfo.UserID
}

// serverElicits reports whether the SDK performs elicitation from the server
// for this session (protocol versions before 2026-07-28). It mirrors the
// SDK's own test, which reads the session's initialize parameters and treats
// their absence as the latest version.
func serverElicits(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion < multiRoundTripVersion
}

// cannotReachClient reports a streamable HTTP session without a session id
// (stateless mode, or a stateful server whose GetSessionID returns ""): the
// SDK rejects every server-to-client request on it, so on older protocol
// versions nobody can be asked.
func cannotReachClient(req *mcp.CallToolRequest) bool {
	return req.Extra != nil && req.Extra.Header != nil && req.Session.ID() == ""
}

// canElicitForm mirrors the SDK's rule: an elicitation capability with
// neither mode set means form.
func canElicitForm(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}
