package elicit

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// command lines, since the approval is bound to the exact prompt, and
	// keep their clocks in step, since the expiry is absolute.
	Key []byte
	// Timeout bounds the wait for a person; 0 means DefaultTimeout.
	Timeout time.Duration
	// ReplayCapacity bounds the replay cache; 0 means DefaultReplayCapacity.
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
	replay     *replayCache
	onDecision func(ctx context.Context, r Refusal)

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
	g := &Gate{
		server:     o.ServerName,
		timeout:    o.Timeout,
		onDecision: o.OnDecision,
		now:        time.Now,
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
	capacity := o.ReplayCapacity
	if capacity == 0 {
		capacity = DefaultReplayCapacity
	}
	g.replay = newReplayCache(capacity)
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
//   - (nil, approved): the person approved exactly this call; run it.
//   - (result, pending): return result as is; it asks the person, and the
//     call comes back with the answer (from the client on 2026-07-28, from
//     the SDK's middleware on older versions).
//   - (result, refused): return result as is; it is an isError result whose
//     text tells the model what happened and whether to ask again.
//
// Check never runs anything and never blocks on the person.
func (g *Gate) Check(ctx context.Context, req *mcp.CallToolRequest, p Prompt) (*mcp.CallToolResult, Decision) {
	d, res := g.decide(ctx, req, p)
	switch {
	case d.Approved():
		return nil, d
	case d.Pending():
		return res, d
	}
	return d.result(), d
}

func (g *Gate) decide(ctx context.Context, req *mcp.CallToolRequest, p Prompt) (Decision, *mcp.CallToolResult) {
	if req == nil || req.Session == nil || req.Params == nil {
		return failed("gate called without a request, session or params"), nil
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
		return Decision{Code: CodeError, Detail: err.Error(),
			Message: fmt.Sprintf("Not run: the arguments cannot be bound to an approval (%v); send them as one JSON object without duplicate keys.", err)}, nil
	}
	msg := message(g.server, tool, p)
	b := binding{Tool: tool, ToolBinding: hashString(p.Binding), Args: argsHash, Prompt: hashString(msg), Session: hashString(req.Session.ID())}
	r, _ := ctx.Value(roundKey{}).(*round)
	if len(req.Params.InputResponses) == 0 && req.Params.RequestState == "" {
		return g.ask(req, b, msg, p.CommandLine, r)
	}
	return g.judge(req, b, r), nil
}

// ask produces the first round: the question and its signed state.
// commandLine is what the person is shown, for the middleware's report.
func (g *Gate) ask(req *mcp.CallToolRequest, b binding, msg, commandLine string, r *round) (Decision, *mcp.CallToolResult) {
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
	c := claims{binding: b, Nonce: nonce, Expires: g.now().Add(g.timeout).UnixMilli()}
	state, err := g.signer.sign(c)
	if err != nil {
		return failed("signing request state: " + err.Error()), nil
	}
	if legacy && !r.arm(state, nonce, b.Tool, commandLine, g.timeout, g.afterFunc) {
		return failed("the gate asked twice within one tools/call"), nil
	}
	d := pending()
	d.Nonce = nonce
	return d, &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{c.inputID(): elicitParams(msg)},
		RequestState:  state,
	}
}

// judge decides a retry that carries an answer.
func (g *Gate) judge(req *mcp.CallToolRequest, b binding, r *round) Decision {
	state, responses := req.Params.RequestState, req.Params.InputResponses
	if state == "" {
		return forged("an answer arrived without request state")
	}
	if len(responses) == 0 {
		return forged("request state arrived without an answer")
	}
	c, err := g.signer.verify(state)
	if err != nil {
		return forged(err.Error())
	}
	d := g.judgeClaims(req, b, r, c)
	d.Nonce = c.Nonce
	return d
}

// judgeClaims decides a retry whose state is authentic, with claims c.
func (g *Gate) judgeClaims(req *mcp.CallToolRequest, b binding, r *round, c claims) Decision {
	responses := req.Params.InputResponses
	if serverElicits(req.Session) {
		if r == nil {
			return misconfigured("elicit.Gate.Middleware is not installed")
		}
		switch r.answer(req.Params.RequestState) {
		case answerLate:
			return timedOut(g.timeout)
		case answerUnasked:
			return forged("on this protocol version the server asks; this tools/call carried an answer the server did not ask for within it")
		}
	}
	now := g.now()
	if isExpired(c.expiry(), now) {
		return expired(fmt.Sprintf("state expired at %s, answer arrived at %s", c.expiry().UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano)))
	}
	if c.Tool == b.Tool && c.ToolBinding != b.ToolBinding {
		return toolChanged()
	}
	if d := c.binding.diff(b); d != "" {
		return mismatch(d)
	}
	resp, ok := responses[c.inputID()]
	if !ok || len(responses) != 1 {
		return forged(fmt.Sprintf("answers carry %d ids; the only question asked was %q", len(responses), c.inputID()))
	}
	switch g.replay.use(c.Nonce, c.expiry(), now) {
	case alreadyUsed:
		return replayed()
	case cacheFull:
		return failed("replay cache is full of unexpired approvals")
	}
	answer, ok := resp.(*mcp.ElicitResult)
	if !ok || answer == nil {
		return forged(fmt.Sprintf("the answer is a %T, not an elicitation result", resp))
	}
	return interpret(answer)
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
