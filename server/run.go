package server

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/internal/progress"
	"github.com/fisk-mcp/fisk-mcp/telemetry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// run runs a prepared call. An in-process call runs here, in the handler's
// goroutine. A command runs under the server's policy: its environment
// (sorted once, in Config, and given the variables the command's
// application declares), timeout, kill grace and redaction (the server's
// secrets and the call's secret flag values), with
// progress reported while it runs; its display line is the one the person
// approved and the log records.
func (s *Server) run(ctx context.Context, req *mcp.CallToolRequest, p *prepared, rec *callRecord) *mcp.CallToolResult {
	cmd, ok := p.call.Command()
	if !ok {
		out, err := p.call.Run(ctx)
		return s.inProcessResult(rec.tool, out, err, rec)
	}
	cmd.Env = s.cfg.Env.For(p.call.Envars())
	cmd.Redactor = s.cfg.Redactor.With(p.call.Secrets()...)
	cmd.RawOutput = s.cfg.RawOutput
	cmd.Timeout = s.cfg.Timeout
	cmd.KillGrace = s.cfg.KillGrace
	cmd.CommandLine = p.line
	ctx, span := telemetry.Start(ctx, "command run")
	proc, err := execrunner.Start(ctx, cmd)
	if err != nil {
		endRun(span, nil, ResultStartFailed)
		return s.commandResult(rec.tool, nil, err, rec)
	}
	running := s.cfg.Telemetry.CommandStarted(ctx)
	stop := s.reportProgress(ctx, req, proc)
	res, err := proc.Wait()
	stop()
	running()
	out := s.commandResult(rec.tool, res, err, rec)
	if span.IsRecording() && s.cfg.Telemetry.CommandLine() {
		span.SetAttributes(attribute.String("fisk_mcp.command_line", p.line))
	}
	endRun(span, res, rec.result)
	return out
}

// endRun ends the span of a command's run with its exit code, output size
// and whether the capture was truncated; a result other than ok or exit
// is its error.type.
func endRun(span trace.Span, res *execrunner.Result, result ResultCode) {
	if !span.IsRecording() {
		return
	}
	if res != nil {
		span.SetAttributes(attribute.Int("process.exit.code", res.ExitCode),
			attribute.Int64("fisk_mcp.output.bytes", res.BytesTotal),
			attribute.Bool("fisk_mcp.output.truncated", res.Truncated))
	}
	if result != ResultOK && result != ResultExit {
		telemetry.Fail(span, string(result))
	}
	span.End()
}

// reportProgress sends a progress notification every ProgressInterval
// while p runs, when the client sent a progress token: the time since the
// start and the output so far. The returned stop waits for the reporter to
// finish, so no notification follows the result.
func (s *Server) reportProgress(ctx context.Context, req *mcp.CallToolRequest, p *execrunner.Process) (stop func()) {
	start := time.Now()
	return progress.Report(ctx, req, progress.Ticker{
		Every: s.cfg.ProgressInterval,
		Next: func() (float64, float64, string) {
			elapsed := time.Since(start)
			return float64(elapsed.Milliseconds()) / 1000, 0, progressMessage(elapsed, p.BytesSoFar())
		},
		// The client is gone or the stream closed; the call's own context
		// decides what happens to the command.
		Failed: func(err error) {
			s.log.Debug("progress notification failed", "tool", req.Params.Name, "err", err)
		},
	})
}

// progressMessage is what a person sees while a command runs.
func progressMessage(elapsed time.Duration, bytes int64) string {
	return fmt.Sprintf("running for %s; %d bytes of output so far", elapsed.Round(100*time.Millisecond), bytes)
}
