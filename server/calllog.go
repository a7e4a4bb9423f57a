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

// decisionUngated is the logged decision of a call that needs no approval;
// gated calls log the gate's decision code (elicit.Code).
const decisionUngated = "ungated"

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
	rec := &callRecord{tool: tool, kind: exposure.KindUnknown, argv: tool, decision: decisionUngated, start: time.Now()}
	if req == nil {
		return rec
	}
	if info := req.ClientInfo(); info != nil {
		rec.client = info.Name
		if info.Version != "" {
			rec.client += "/" + info.Version
		}
	}
	if req.Session != nil {
		rec.session = req.Session.ID()
	}
	return rec
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
func DecisionLogger(l *slog.Logger) func(ctx context.Context, tool string, d elicit.Decision) {
	return func(ctx context.Context, tool string, d elicit.Decision) {
		l.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "tool call",
			slog.String("tool", tool),
			slog.String("decision", string(d.Code)),
			slog.String("decision_detail", d.Detail),
			slog.String("result", "refused"),
		)
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
