package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// callRecord accumulates what one call did, for its single log line.
type callRecord struct {
	tool     string
	kind     exposure.Kind
	argv     string
	client   string
	session  string
	decision string
	// decisionDetail is the gate's reason, for the operator.
	decisionDetail string
	result         string
	exec           *execrunner.Result
	err            error
	start          time.Time
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

// logCall writes the call's one structured line at Info: tool, kind, argv
// (the redacted trace line), client, session, approval decision, result,
// exit code, duration and bytes.
func (s *Server) logCall(ctx context.Context, rec *callRecord) {
	attrs := []slog.Attr{
		slog.String("tool", rec.tool),
		slog.String("kind", string(rec.kind)),
		slog.String("argv", rec.argv),
		slog.String("client", rec.client),
		slog.String("session", rec.session),
		slog.String("decision", rec.decision),
		slog.String("result", rec.result),
		slog.Duration("duration", time.Since(rec.start)),
	}
	if rec.decisionDetail != "" {
		attrs = append(attrs, slog.String("decision_detail", rec.decisionDetail))
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
		attrs = append(attrs, slog.String("err", rec.err.Error()))
	}
	s.log.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "tool call", attrs...)
}

// DecisionLogger returns a function for elicit.Options.OnDecision that
// logs the refusals the gate's middleware makes on its own (on protocol
// versions before 2026-07-28: no answer in time, or asking failed). Those
// end a call after its handler already logged it as pending, so without
// this the operator would not see how the call ended. New installs it on
// the gate it creates when Config.Gate is nil.
//
// The line has the fields of every other call line except kind, which the
// gate does not know: the handler's pending line for the same session and
// tool carries it. argv is the command line the person was shown, already
// redacted by the handler; duration covers the whole call, the wait for the
// person included.
func DecisionLogger(l *slog.Logger) func(ctx context.Context, r elicit.Refusal) {
	return func(ctx context.Context, r elicit.Refusal) {
		argv := r.CommandLine
		if argv == "" {
			argv = r.Tool
		}
		attrs := []slog.Attr{
			slog.String("tool", r.Tool),
			slog.String("argv", argv),
			slog.String("client", clientLabel(r.Client)),
			slog.String("session", r.Session),
			slog.String("decision", string(r.Decision.Code)),
			slog.String("result", "refused"),
			slog.Duration("duration", r.Duration),
		}
		if r.Decision.Detail != "" {
			attrs = append(attrs, slog.String("decision_detail", r.Decision.Detail))
		}
		l.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "tool call", attrs...)
	}
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
