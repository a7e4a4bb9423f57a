package execrunner

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/fisk-mcp/fisk-mcp/procgroup"
)

// supervise runs the process group's supervision (capture, group kill,
// reap; see procgroup) and records the Result. The timeout and the context
// act through callbacks meanwhile, so a run needs no goroutine beyond the
// one running supervise (on Linux).
func (p *Process) supervise(ctx context.Context) {
	defer close(p.done)
	if ctx.Done() != nil { // else the context can never end
		stopOnCancel := context.AfterFunc(ctx, func() {
			p.group.Stop(fmt.Errorf("%w after %v (%w); process group killed",
				stopKind(ctx.Err()), time.Since(p.group.Started()).Round(time.Millisecond), context.Cause(ctx)))
		})
		defer stopOnCancel()
	}
	if p.timeout > 0 {
		t := time.AfterFunc(p.timeout, func() {
			p.group.Stop(fmt.Errorf("%w after %v; process group killed", ErrTimeout, p.timeout))
		})
		defer t.Stop()
	}
	p.result, p.err = p.collect(p.group.Wait())
}

func (p *Process) collect(exit procgroup.Exit) (*Result, error) {
	state := exit.State
	if state == nil {
		return nil, fmt.Errorf("waiting for %s: %w", p.commandLine, exit.Err)
	}
	res := &Result{
		ExitCode:    state.ExitCode(),
		Output:      p.output(),
		Truncated:   p.ring.Truncated(),
		BytesTotal:  p.ring.Total(),
		Duration:    exit.Duration,
		CommandLine: p.commandLine,
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode = -1
		res.Signal = signalName(ws.Signal())
	}
	return res, exit.Stopped
}

// stopKind tells a deadline from a cancellation.
func stopKind(ctxErr error) error {
	if errors.Is(ctxErr, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return ErrCanceled
}
