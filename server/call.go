package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/fisk-mcp/fisk-mcp/discovery"
	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// call is one pass of the handler registered for the tool called name,
// from the lookup to the result (the call path in the package doc). It
// writes into the request's record; the server's middleware logs it once
// the whole request has returned.
//
// The gate runs before the slot and outside the command's timeout, so a
// person thinking does not hold a slot or eat the command's time. Every
// failure after the lookup is an isError result the model can act on, a
// panic included.
//
// The call is prepared for the tool's binding (descriptor and binary): the
// approval covers that binding, and once a slot is free the call is refused
// unless the name still has it and the binary is still the file that was
// loaded. Without that, a reload during the wait would let the call run
// another program, or the new program with arguments validated against the
// old schema.
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest, tgt target) (res *mcp.CallToolResult, err error) {
	name := tgt.name
	st := requestOf(ctx)
	if st == nil {
		// The SDK calls the handler only through the server's middleware;
		// a call reaching it any other way still writes its line.
		st = newCallState(req)
		defer s.logCall(ctx, st.rec)
	}
	st.handled = true
	rec := st.rec
	defer s.redactResult(&res)
	// Registered after logCall, so the line records the panic; the slot and
	// the call tracker, registered later, are released before it runs.
	defer s.recoverPanic(rec, &res, &err)

	set := s.tools.Load()
	a := s.accessOf(extraOf(req))
	tool, ok := set.Lookup(name)
	if !ok || !tool.MCPExposable() || !a.callable(tool) {
		// A tool the caller may not call is answered as one that does not
		// exist.
		rec.kind, rec.argv, rec.decision = exposure.KindUnknown, name, decisionNone
		rec.result = ResultUnknownTool
		if tgt.via != nil {
			return errorResult("nothing ran: %s", s.unknownTool(set, name, a)), nil
		}
		return nil, s.unknownToolError(set, name, a)
	}
	binding, _ := set.Binding(name)
	rec.kind = exposure.KindOf(tool)
	if app, ok := tool.(exposure.Applied); ok {
		rec.application = app.Application()
	}
	gate, ok := tool.(exposure.Confirmable)
	if !ok {
		rec.result = ResultRefused
		return errorResult("tool %q cannot report whether it needs a person's approval, so fisk-mcp refuses to run it; this is a server configuration problem, do not retry", name), nil
	}
	rec.decision = gateDecision(gate.NeedsConfirm())
	if err := tgt.via.Check(tool); err != nil {
		rec.result = ResultNotReadOnly
		return errorResult("nothing ran: %v", err), nil
	}
	p, err := s.prepare(st, tool, binding, tgt.args)
	if err != nil {
		rec.argv = s.cfg.Redactor.Redact(name)
		rec.result = ResultInvalidArguments
		rec.err = err
		return errorResult("nothing ran: %v\nFix the arguments and call %q again.", err, name), nil
	}
	rec.argv = p.line
	if refusal := tooLong(name, p, rec); refusal != nil {
		return refusal, nil
	}

	// The call is tracked from here, before the gate: once a shutdown has
	// begun, nobody is asked to approve a call that would then be refused,
	// and an approval answered during the drain starts nothing.
	ctx, end, err := s.calls.begin(ctx, req.Session)
	if err != nil {
		rec.result = ResultDraining
		return errorResult("%v", err), nil
	}
	defer end()

	if gate.NeedsConfirm() {
		answer, approved, err := s.approve(ctx, req, rec, gate.ConfirmTrigger(), p, !a.approvesOwn(tool))
		if err != nil || !approved {
			return answer, err
		}
	}

	release, err := s.acquire(ctx, req, name)
	if err != nil {
		rec.result = ResultCancelled
		return errorResult("the call was cancelled while waiting for a free slot (at most %d calls run at once); nothing ran", s.cfg.Concurrency), nil
	}
	defer release()

	if refusal := s.sameTool(name, p, rec); refusal != nil {
		return refusal, nil
	}
	return s.run(ctx, req, p, rec), nil
}

// target is what a tools/call asks to run: the tool named by the request
// itself, or, through an executor (via), the tool and arguments named in
// the executor's arguments. From the lookup on, both take the same path.
type target struct {
	name string
	args json.RawMessage
	via  *discovery.Executor // nil for a direct call
}

// prepared is one call prepared for the tool that had binding: what the
// gate shows and binds, the log records and the run uses.
type prepared struct {
	raw     json.RawMessage // the request's arguments, as prepared
	binding string
	call    *exposure.Call
	line    string // the display line, rendered and redacted once
}

// prepare validates and renders the call once per request. On protocol
// versions before 2026-07-28 the SDK invokes the handler a second time
// within the same request, carrying the person's answer; that pass reuses
// the first one's call when the name has the same binding and the
// arguments are byte for byte the same. A tool that changed in between is
// prepared anew, and the gate then refuses the approval as given for
// another tool.
func (s *Server) prepare(st *callState, tool exposure.Tool, binding string, raw json.RawMessage) (*prepared, error) {
	if p := st.prepared; p != nil && p.binding == binding && bytes.Equal(p.raw, raw) {
		return p, nil
	}
	if s.onPrepare != nil {
		s.onPrepare(tool.Name())
	}
	c, err := tool.Prepare(raw)
	if err != nil {
		return nil, err
	}
	p := &prepared{raw: raw, binding: binding, call: c, line: s.commandLine(tool.Name(), c.DisplayArgv())}
	st.prepared = p
	return p, nil
}

// commandLine renders argv (binary first, secret flag values already
// hidden: exposure.Call.DisplayArgv) for display once, through the
// Redactor, which redacts the words before quoting and the line after: the
// person approves, the operator logs and the result reports this text, with
// every secret hidden even where quoting rewrites it.
func (s *Server) commandLine(name string, argv []string) string {
	if len(argv) == 0 {
		return name
	}
	return s.cfg.Redactor.DisplayCommandLine(argv[0], argv[1:])
}

// approve consults the gate. ok is true when the person approved exactly
// this call; otherwise res and err are what the handler returns as is: an
// input-required result (the question, maybe asked again), an isError
// refusal, or the protocol error of a requestState this server did not
// issue. The approval is bound to the call's binding, the tool's identity
// in the set it was prepared in.
func (s *Server) approve(ctx context.Context, req *mcp.CallToolRequest, rec *callRecord, trigger string, p *prepared, othersOnly bool) (res *mcp.CallToolResult, ok bool, err error) {
	rec.trigger = trigger
	res, d, err := s.traceGate(ctx, func(ctx context.Context) (*mcp.CallToolResult, elicit.Decision, error) {
		return s.cfg.Gate.Check(ctx, req, elicit.Prompt{
			Tool:        rec.tool,
			Arguments:   p.call.Arguments(),
			CommandLine: p.line,
			Trigger:     trigger,
			Binding:     p.binding,
			Client:      clientOf(req),
			OthersOnly:  othersOnly,
		})
	})
	rec.decided(d)
	switch {
	case err != nil:
		rec.result = ResultRefused
		return nil, false, err
	case d.Approved():
		return nil, true, nil
	case d.Pending() && res != nil:
		rec.result = ResultInputRequired
		return res, false, nil
	}
	// Refused, or a pending decision without its question: fail closed.
	rec.result = ResultRefused
	if res == nil || !res.IsError {
		rec.decision = string(elicit.CodeError)
		res = errorResult("the call to %q was not approved, so nothing ran; do not retry unless the user asks you to", rec.tool)
	}
	return res, false, nil
}

// tooLong refuses, before anyone is asked to approve it, a command whose
// argv is over execrunner.MaxArgv: the system would refuse to start it,
// and a person cannot review a command line of megabytes. nil means go on.
func tooLong(name string, p *prepared, rec *callRecord) *mcp.CallToolResult {
	cmd, ok := p.call.Command()
	if !ok {
		return nil
	}
	n := execrunner.ArgvSize(cmd.Path, cmd.Args)
	if n <= execrunner.MaxArgv {
		return nil
	}
	rec.result = ResultTooLong
	return errorResult("nothing ran: the command line would be %d bytes, more than the %d a command can be given; "+
		"pass less in one call (fewer list items, shorter values) and call %q again", n, execrunner.MaxArgv, name)
}

// sameTool is the one check after every wait, right before the run: the
// name still has the binding the call was prepared (and approved) for in
// the set in force, and a command's binary is still the file the tool was
// loaded from. nil means run.
func (s *Server) sameTool(name string, p *prepared, rec *callRecord) *mcp.CallToolResult {
	if now, ok := s.tools.Load().Binding(name); !ok || now != p.binding {
		rec.result = ResultToolChanged
		return errorResult("nothing ran: the tool changed while the call waited (the application was reloaded); call %q again", name)
	}
	if err := p.call.CheckBinary(); err != nil {
		rec.err = err
		return s.failure(name, nil, err, rec)
	}
	return nil
}

// recoverPanic turns a panic anywhere in a call, a tool's code above all,
// into an isError result, so one faulty tool cannot take down the server
// and orphan every command other calls are running. The stack goes to the
// log at Error; the model is told only that the call failed. It must be
// deferred directly by call.
func (s *Server) recoverPanic(rec *callRecord, res **mcp.CallToolResult, err *error) {
	v := recover()
	if v == nil {
		return
	}
	s.log.Error("tool call panicked", "tool", rec.tool, "kind", string(rec.kind), "panic", logField(s.cfg.Redactor.Redact(fmt.Sprint(v))), "stack", string(debug.Stack()))
	rec.result = ResultPanic
	rec.err = fmt.Errorf("panic: %v", v)
	*res = errorResult("internal error; the call failed: tool %q broke down inside the server (the operator's log has the details). Retrying is unlikely to help.", rec.tool)
	*err = nil
}

// acquire takes a concurrency slot for the call req, waiting as long as ctx
// allows, within the share of its client (see slotPool).
func (s *Server) acquire(ctx context.Context, req *mcp.CallToolRequest, tool string) (release func(), err error) {
	return s.traceSlot(ctx, func(waited func()) (func(), error) {
		var waiting func()
		if s.onSlotWait != nil || waited != nil {
			waiting = func() {
				if waited != nil {
					waited()
				}
				if s.onSlotWait != nil {
					s.onSlotWait(tool)
				}
			}
		}
		return s.slots.acquire(ctx, clientOf(req), waiting)
	})
}

// errorResult is an isError result with one text block.
func errorResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}},
	}
}
