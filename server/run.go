package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deps binds the server's run policy to one call: the tool supplies the
// binary and argv; the server supplies environment, timeout, kill grace,
// redaction and progress reporting.
func (s *Server) deps(req *mcp.CallToolRequest, rec *callRecord) exposure.ExecDeps {
	return exposure.ExecDeps{Run: func(ctx context.Context, c execrunner.Command) (*execrunner.Result, error) {
		if c.Env == nil {
			c.Env = s.cfg.Env
		}
		if c.Redactor == nil {
			c.Redactor = s.cfg.Redactor
		}
		c.Timeout = s.cfg.Timeout
		c.KillGrace = s.cfg.KillGrace
		p, err := execrunner.Start(ctx, c)
		if err != nil {
			return nil, err
		}
		stop := s.reportProgress(ctx, req, p)
		res, err := p.Wait()
		stop()
		return res, err
	}}
}

// reportProgress sends a progress notification every ProgressInterval while
// p runs, when the client sent a progress token. The returned stop waits
// for the reporter to finish, so no notification follows the result.
func (s *Server) reportProgress(ctx context.Context, req *mcp.CallToolRequest, p *execrunner.Process) (stop func()) {
	if req.Params == nil || req.Session == nil {
		return func() {}
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		start := time.Now()
		ticker := time.NewTicker(s.cfg.ProgressInterval)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case now := <-ticker.C:
				elapsed := now.Sub(start)
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token,
					Progress:      float64(elapsed.Milliseconds()) / 1000,
					Message:       progressMessage(elapsed, p.BytesSoFar()),
				})
				if err != nil {
					// The client is gone or the stream closed; the call's
					// own context decides what happens to the command.
					s.log.Debug("progress notification failed", "tool", req.Params.Name, "err", err)
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// progressMessage is what a person sees while a command runs.
func progressMessage(elapsed time.Duration, bytes int64) string {
	return fmt.Sprintf("running for %s; %d bytes of output so far", elapsed.Round(100*time.Millisecond), bytes)
}
