package server

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// commandResult turns a command's run into the tool result: its record
// becomes a CommandResult envelope, also on a timeout or cancel, so the
// model sees the partial output.
func (s *Server) commandResult(name string, r *execrunner.Result, err error, rec *callRecord) *mcp.CallToolResult {
	rec.exec = r
	if err == nil && r == nil {
		err = fmt.Errorf("running %s: the runner returned no result", name)
	}
	if err != nil {
		rec.err = err
		return s.failure(name, r, err, rec)
	}
	rec.result = ResultOK
	if r.ExitCode != 0 {
		rec.result = ResultExit
	}
	return envelopeResult(r, false, "")
}

// inProcessResult turns what an in-process call produced into the tool
// result: its JSON passes through as it is.
func (s *Server) inProcessResult(name string, out *exposure.Outcome, err error, rec *callRecord) *mcp.CallToolResult {
	if err != nil {
		rec.err = err
		return s.failure(name, nil, err, rec)
	}
	switch {
	case out == nil:
		rec.result = ResultEmpty
		return errorResult("tool %q produced no outcome; this is a bug in the tool, do not retry", name)
	case out.Deferred:
		rec.result = ResultDeferred
		return errorResult("tool %q answered that its result would arrive later, which MCP cannot deliver; nothing will follow", name)
	}
	rec.result = ResultOK
	return passThrough(out.Output)
}

// failure is the isError result for a call that failed, with the partial
// command record r when there is one.
func (s *Server) failure(name string, r *execrunner.Result, err error, rec *callRecord) *mcp.CallToolResult {
	var startErr *execrunner.StartError
	var msg string
	switch {
	case errors.Is(err, execrunner.ErrTimeout):
		rec.result = ResultTimeout
		msg = fmt.Sprintf("the command timed out after %s and its process group was killed; any partial output is included. Narrow the request, or ask the operator to raise the timeout", s.cfg.Timeout)
	case errors.Is(err, execrunner.ErrCanceled):
		rec.result = ResultCancelled
		msg = "the call was cancelled and the command's process group was killed"
		if s.calls.stop.Err() != nil {
			msg = "the server shut down before the command finished, so its process group was killed"
		}
	case errors.Is(err, exposure.ErrBinaryChanged):
		rec.result = ResultBinaryChanged
		msg = fmt.Sprintf("nothing ran: %v. fisk-mcp reloads a changed application when serving with --watch; call %q again", err, name)
	case errors.As(err, &startErr):
		rec.result = ResultStartFailed
		msg = fmt.Sprintf("the command could not be started: %v; this is a server configuration problem, do not retry", err)
	default:
		rec.result = ResultError
		msg = fmt.Sprintf("tool %q failed: %v", name, err)
	}
	if r != nil {
		return envelopeResult(r, true, msg)
	}
	return errorResult("%s", msg)
}

// envelopeResult wraps a command record as structuredContent plus the same
// JSON as text; message, when set, precedes it.
func envelopeResult(r *execrunner.Result, isError bool, message string) *mcp.CallToolResult {
	env := CommandResult{
		Command:    r.CommandLine,
		ExitCode:   r.ExitCode,
		Signal:     r.Signal,
		Output:     r.Output,
		Truncated:  r.Truncated,
		BytesTotal: r.BytesTotal,
		DurationMS: r.Duration.Milliseconds(),
	}
	data, err := json.Marshal(env)
	if err != nil {
		// Only invalid UTF-8 could fail here, and execrunner guarantees
		// valid UTF-8; report rather than panic.
		return errorResult("encoding the command result: %v", err)
	}
	res := &mcp.CallToolResult{IsError: isError, StructuredContent: json.RawMessage(data)}
	if message != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: message})
	}
	res.Content = append(res.Content, &mcp.TextContent{Text: string(data)})
	return res
}

// passThrough returns an in-process tool's JSON as structured content and
// text; output that is not JSON is returned as text alone.
func passThrough(output json.RawMessage) *mcp.CallToolResult {
	if len(output) == 0 {
		output = json.RawMessage("null")
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(output)}}}
	if string(output) != "null" && json.Valid(output) {
		res.StructuredContent = output
	}
	return res
}

// inputRequired is an input-required tools/call result as this server
// sends it: an InputRequiredResult of the 2026-07-28 schema, whose fields
// are these four. The SDK writes the CallToolResult it is carried in with
// "content": null, which a CallToolResult cannot hold (its content is an
// array) and an InputRequiredResult has no use for. It embeds the SDK's
// result for the methods that make it one.
type inputRequired struct{ *mcp.CallToolResult }

func (r inputRequired) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Meta          mcp.Meta            `json:"_meta,omitempty"`
		ResultType    string              `json:"resultType"`
		InputRequests mcp.InputRequestMap `json:"inputRequests,omitempty"`
		RequestState  string              `json:"requestState,omitempty"`
	}{r.Meta, "input_required", r.InputRequests, r.RequestState})
}

// onTheWireCall is a tools/call result as this server sends it (see
// inputRequired).
func onTheWireCall(res mcp.Result) mcp.Result {
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.NeedsInput() {
		return inputRequired{r}
	}
	return res
}
