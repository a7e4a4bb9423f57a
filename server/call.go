package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// call runs one tools/call for the tool registered as name:
//
//	current set -> Confirmable -> validation -> approval gate ->
//	concurrency slot -> same tool? -> Execute -> result
//
// The gate runs before the slot and outside the command's timeout, so a
// person thinking does not hold a slot or eat the command's time. Every
// failure after the lookup is an isError result the model can act on, a
// panic included.
//
// The tool is looked up once, and the call is bound to its fingerprint
// (descriptor and binary): the approval covers that fingerprint, and once a
// slot is free the name is looked up again and the call refused unless it
// still names the same tool. Without that, a reload during the wait would
// let the call run another program, or the new program with arguments
// validated against the old schema.
func (s *Server) call(ctx context.Context, name string, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
	rec := newCallRecord(name, req)
	defer s.logCall(ctx, rec)
	// Registered after logCall, so it runs first and the line records the
	// panic; the slot and the call tracker, registered later, are released
	// before it runs.
	defer s.recoverPanic(rec, &res, &err)

	set := s.tools.Load()
	tool, ok := set.Lookup(name)
	if !ok || !tool.MCPExposable() {
		rec.result = "unknown_tool"
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	fingerprint, _ := set.Fingerprint(name)
	rec.kind = exposure.KindOf(tool)
	gate, ok := tool.(exposure.Confirmable)
	if !ok {
		rec.result = "refused"
		return errorResult("tool %q cannot report whether it needs a person's approval, so fisk-mcp refuses to run it; this is a server configuration problem, do not retry", name), nil
	}
	rec.decision = gateDecision(gate.NeedsConfirm())
	args := arguments(req)
	argv, err := gate.Command(args)
	if err != nil {
		// Invalid arguments: TraceLine yields just the tool name.
		rec.argv = s.cfg.Redactor.Redact(gate.TraceLine(args))
		rec.result = "invalid_arguments"
		rec.err = err
		return errorResult("nothing ran: %v\nFix the arguments and call %q again.", err, name), nil
	}
	// The log and the approval prompt show the command exactly as the
	// result's command field will.
	rec.argv = s.commandLine(name, argv)

	// The call is tracked from here, before the gate: once a shutdown has
	// begun, nobody is asked to approve a call that would then be refused,
	// and an approval answered during the drain starts nothing.
	ctx, end, err := s.calls.begin(ctx)
	if err != nil {
		rec.result = "draining"
		return errorResult("%v", err), nil
	}
	defer end()

	if gate.NeedsConfirm() {
		answer, approved := s.approve(ctx, req, rec, gate, args, fingerprint)
		if !approved {
			return answer, nil
		}
	}

	if err := s.acquire(ctx, name); err != nil {
		rec.result = "cancelled"
		return errorResult("the call was cancelled while waiting for a free slot (at most %d calls run at once); nothing ran", s.cfg.Concurrency), nil
	}
	defer s.release()

	if now, ok := s.tools.Load().Fingerprint(name); !ok || now != fingerprint {
		rec.result = "tool_changed"
		return errorResult("nothing ran: the tool changed while the call waited (the application was reloaded); call %q again", name), nil
	}
	out, err := tool.Execute(ctx, args, s.deps(req, rec))
	return s.result(name, out, err, rec), nil
}

// recoverPanic turns a panic anywhere in a call, a tool's Execute above
// all, into an isError result, so one faulty tool cannot take down the
// server and orphan every command other calls are running. The stack goes
// to the log at Error; the model is told only that the call failed. It must
// be deferred directly by call.
func (s *Server) recoverPanic(rec *callRecord, res **mcp.CallToolResult, err *error) {
	v := recover()
	if v == nil {
		return
	}
	s.log.Error("tool call panicked", "tool", rec.tool, "kind", string(rec.kind), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	rec.result = "panic"
	rec.err = fmt.Errorf("panic: %v", v)
	*res = errorResult("internal error; the call failed: tool %q broke down inside the server (the operator's log has the details). Retrying is unlikely to help.", rec.tool)
	*err = nil
}

// approve consults the gate. ok is true when the person approved exactly
// this call; otherwise res is what the handler returns as is: an
// input-required result (the question) or an isError refusal.
// The approval is bound to fingerprint, the tool's identity in the set it
// was looked up in.
func (s *Server) approve(ctx context.Context, req *mcp.CallToolRequest, rec *callRecord, gate exposure.Confirmable, args json.RawMessage, fingerprint string) (res *mcp.CallToolResult, ok bool) {
	res, d := s.cfg.Gate.Check(ctx, req, elicit.Prompt{
		Tool:        rec.tool,
		Arguments:   args,
		CommandLine: rec.argv,
		Trigger:     gate.ConfirmTrigger(),
		Fingerprint: fingerprint,
	})
	rec.decision = string(d.Code)
	rec.decisionDetail = d.Detail
	switch {
	case d.Approved():
		return nil, true
	case d.Pending() && res != nil:
		rec.result = "input_required"
		return res, false
	}
	// Refused, or a pending decision without its question: fail closed.
	rec.result = "refused"
	if res == nil || !res.IsError {
		rec.decision = string(elicit.CodeError)
		res = errorResult("the call to %q was not approved, so nothing ran; do not retry unless the user asks you to", rec.tool)
	}
	return res, false
}

// commandLine renders argv (binary first) for display exactly as execrunner
// renders Result.CommandLine, through the same Redactor.DisplayCommandLine:
// the person approves, and the operator logs, the same text the result
// reports, with every secret hidden even where quoting rewrites it.
func (s *Server) commandLine(name string, argv []string) string {
	if len(argv) == 0 {
		return name
	}
	return s.cfg.Redactor.DisplayCommandLine(argv[0], argv[1:])
}

// arguments returns the call's raw arguments. Absent or null arguments are
// the empty object: the protocol makes arguments optional, and some clients
// send null for "none"; validation then sees what the client meant.
func arguments(req *mcp.CallToolRequest) json.RawMessage {
	if req.Params == nil {
		return json.RawMessage("{}")
	}
	if raw := bytes.TrimSpace(req.Params.Arguments); len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return json.RawMessage("{}")
	}
	return req.Params.Arguments
}

// acquire takes a concurrency slot, waiting as long as ctx allows.
func (s *Server) acquire(ctx context.Context, tool string) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	default:
	}
	if s.onSlotWait != nil {
		s.onSlotWait(tool)
	}
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) release() { <-s.slots }

// errorResult is an isError result with one text block.
func errorResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}},
	}
}
