package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/identity"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// The logged decision of a call the gate did not decide; a call the gate
// decided logs the gate's decision code (elicit.Code).
const (
	// decisionUngated: the tool needs no approval.
	decisionUngated = "ungated"
	// decisionNotAsked: the tool needs approval, but the call ended before
	// anyone was asked (invalid arguments, shutdown).
	decisionNotAsked = "not_asked"
	// decisionNone: there was no tool that could say whether it needs
	// approval (an unknown tool, or one that cannot report a gate).
	decisionNone = "none"
)

// ResultCode is how one tools/call ended, as its log line's result says:
// short, stable names meant for logs and metrics. The approval gate's part
// is in the line's decision (an elicit.Code, or one of the server's own).
type ResultCode string

const (
	// ResultOK: the tool ran and succeeded (a command exited 0).
	ResultOK ResultCode = "ok"
	// ResultExit: the command ran and exited non-zero, a normal result.
	ResultExit ResultCode = "exit"
	// ResultUnknownTool: the name is not a tool of the set in force.
	ResultUnknownTool ResultCode = "unknown_tool"
	// ResultRefused: nothing ran: the gate did not approve, or the tool
	// cannot report whether it needs approval.
	ResultRefused ResultCode = "refused"
	// ResultInputRequired: the person is being asked; the request returned
	// the question.
	ResultInputRequired ResultCode = "input_required"
	// ResultNotReadOnly: the read-only executor was asked to run a tool
	// that is not read-only; nothing ran.
	ResultNotReadOnly ResultCode = "not_read_only"
	// ResultInvalidArguments: the arguments failed validation.
	ResultInvalidArguments ResultCode = "invalid_arguments"
	// ResultTooLong: the command line is over execrunner.MaxArgv, so
	// nothing ran and nobody was asked to approve it.
	ResultTooLong ResultCode = "too_long"
	// ResultDraining: the server is shutting down and takes no new calls.
	ResultDraining ResultCode = "draining"
	// ResultCancelled: the call was cancelled waiting for a slot or while
	// the command ran.
	ResultCancelled ResultCode = "cancelled"
	// ResultToolChanged: a reload changed the tool while the call waited.
	ResultToolChanged ResultCode = "tool_changed"
	// ResultBinaryChanged: the command's binary is not the file that was
	// loaded.
	ResultBinaryChanged ResultCode = "binary_changed"
	// ResultTimeout: the command ran out of time and was killed.
	ResultTimeout ResultCode = "timeout"
	// ResultStartFailed: the command could not be started.
	ResultStartFailed ResultCode = "start_failed"
	// ResultEmpty: an in-process tool produced no outcome.
	ResultEmpty ResultCode = "empty"
	// ResultDeferred: an in-process tool answered that its result would
	// arrive later, which MCP cannot deliver.
	ResultDeferred ResultCode = "deferred"
	// ResultPanic: the tool panicked inside the server.
	ResultPanic ResultCode = "panic"
	// ResultError: the tool failed in another way.
	ResultError ResultCode = "error"
)

// callRecord accumulates what one tools/call request did, over every
// handler pass and the gate's own refusal, for its single log line.
type callRecord struct {
	tool string
	kind exposure.Kind
	// executor is the discovery tool that carried the call ("" for a
	// direct call).
	executor string
	argv     string
	client   string
	session  string
	// caller and callerName are the OAuth caller's subject and display
	// name ("" without OAuth).
	caller, callerName string
	decision           string
	// decisionDetail is the gate's reason, for the operator.
	decisionDetail string
	// approval is the nonce of the approval asked or answered: it links
	// the line of a question to the line of its answered retry, which on
	// 2026-07-28 is another request.
	approval string
	// approver says who approved an approved call: the caller's subject
	// for an answer through elicitation, or the kind of person the
	// browser's page lets decide ("local user", "approver token"). Never
	// a token.
	approver string
	// application is the name the tool's application gives itself, and
	// trigger what made the call need approval (a tag), for telemetry.
	application, trigger string
	result               ResultCode
	exec                 *execrunner.Result
	err                  error
	start                time.Time
}

func newCallRecord(tool string, req *mcp.CallToolRequest) *callRecord {
	rec := &callRecord{tool: tool, kind: exposure.KindUnknown, argv: tool, decision: decisionNone, start: time.Now()}
	if req == nil {
		return rec
	}
	rec.client = clientLabel(req.ClientInfo())
	if req.Session != nil {
		rec.session = req.Session.ID()
	}
	if req.Extra != nil {
		rec.caller, rec.callerName = identity.Named(req.Extra.TokenInfo)
	}
	return rec
}

// clientLabel is how a client is named in logs: "name/version".
func clientLabel(info *mcp.Implementation) string {
	if info == nil {
		return ""
	}
	if info.Version == "" {
		return info.Name
	}
	return info.Name + "/" + info.Version
}

// gateDecision is what a call logs as its decision until the gate decides:
// ungated, or not asked yet for a tool that needs approval.
func gateDecision(needsConfirm bool) string {
	if needsConfirm {
		return decisionNotAsked
	}
	return decisionUngated
}

// decided records the gate's decision d.
func (rec *callRecord) decided(d elicit.Decision) {
	rec.decision = string(d.Code)
	rec.decisionDetail = d.Detail
	if d.Nonce != "" {
		rec.approval = d.Nonce
	}
	rec.approver = d.Approver
	if d.Approver == elicit.ApproverCaller && rec.caller != "" {
		rec.approver = rec.caller
	}
}

// logCall writes the call's one structured line at Info: tool, kind, argv
// (the redacted display line), client, session, the OAuth caller's
// subject and display name, approval decision, the approval's nonce and
// who approved,
// result, exit code, duration and bytes. Each text field is redacted, then
// bounded by MaxLogField.
func (s *Server) logCall(ctx context.Context, rec *callRecord) {
	field := func(v string) string { return logField(s.cfg.Redactor.Redact(v)) }
	attrs := []slog.Attr{
		slog.String("tool", field(rec.tool)),
		slog.String("kind", string(rec.kind)),
		slog.String("argv", field(rec.argv)),
		slog.String("client", field(rec.client)),
		slog.String("session", rec.session),
		slog.String("decision", rec.decision),
		slog.String("result", string(rec.result)),
		slog.Duration("duration", time.Since(rec.start)),
	}
	if rec.caller != "" {
		attrs = append(attrs, slog.String("caller", field(rec.caller)))
		if rec.callerName != "" {
			attrs = append(attrs, slog.String("caller_name", field(rec.callerName)))
		}
	}
	if rec.executor != "" {
		attrs = append(attrs, slog.String("executor", rec.executor))
	}
	if rec.decisionDetail != "" {
		attrs = append(attrs, slog.String("decision_detail", field(rec.decisionDetail)))
	}
	if rec.approval != "" {
		attrs = append(attrs, slog.String("approval", rec.approval))
	}
	if rec.approver != "" {
		attrs = append(attrs, slog.String("approver", field(rec.approver)))
	}
	if rec.exec != nil {
		attrs = append(attrs,
			slog.Int("exit_code", rec.exec.ExitCode),
			slog.Int64("bytes", rec.exec.BytesTotal),
			slog.Bool("truncated", rec.exec.Truncated),
		)
		if rec.exec.Signal != "" {
			attrs = append(attrs, slog.String("signal", rec.exec.Signal))
		}
	}
	if rec.err != nil {
		attrs = append(attrs, slog.String("err", field(rec.err.Error())))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	s.observeCall(ctx, rec)
	s.log.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "tool call", attrs...)
}

// sdkLogger passes the SDK's own logging through at Warn and above only:
// its Info lines (every session connect and disconnect) would drown the
// one line per call.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(minLevel{Handler: l.Handler(), min: slog.LevelWarn})
}

// minLevel drops records below min.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{Handler: h.Handler.WithAttrs(attrs), min: h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{Handler: h.Handler.WithGroup(name), min: h.min}
}
