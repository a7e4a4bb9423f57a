package execrunner

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// supervise captures the output until the leader exits, kills what is left
// of its group, reaps the leader, finishes the capture and records the
// Result. The timeout and the context act through callbacks meanwhile, so a
// run needs no goroutine beyond the one running supervise (on Linux; see
// capture.go).
func (p *Process) supervise(ctx context.Context) {
	defer close(p.done)
	if ctx.Done() != nil { // else the context can never end
		stopOnCancel := context.AfterFunc(ctx, func() {
			p.stop(fmt.Errorf("%w after %v (%w); process group killed",
				stopKind(ctx.Err()), time.Since(p.started).Round(time.Millisecond), context.Cause(ctx)))
		})
		defer stopOnCancel()
	}
	if p.timeout > 0 {
		t := time.AfterFunc(p.timeout, func() {
			p.stop(fmt.Errorf("%w after %v; process group killed", ErrTimeout, p.timeout))
		})
		defer t.Stop()
	}

	p.awaitExit()
	exitedAt := time.Now()
	p.mu.Lock()
	p.leaderGone = true
	if p.escalate != nil {
		p.escalate.Stop()
	}
	stopErr := p.stopErr
	p.mu.Unlock()

	// Whatever is left of the group was abandoned by a leader that has
	// exited: kill it now, not after a grace, so no call returns while its
	// descendants still run. The leader is an unreaped zombie (unless
	// awaitLeader had to reap it), so the group id is still its own.
	p.signalGroup(syscall.SIGKILL)
	if !p.reaped {
		p.waitErr = p.cmd.Wait()
	}
	// A process that left the group can hold the pipe open after every
	// member we could kill is gone: stop reading after the grace.
	p.finishCapture(exitedAt.Add(p.grace))
	p.result, p.err = p.collect(stopErr, exitedAt.Sub(p.started))
}

// stop asks the group to terminate (SIGTERM) and arms SIGKILL after the
// grace. Only the first reason counts; once the leader is gone there is
// nothing to stop.
func (p *Process) stop(reason error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leaderGone || p.stopErr != nil {
		return
	}
	p.stopErr = reason
	p.signalGroup(syscall.SIGTERM)
	p.signalGroup(syscall.SIGCONT) // a stopped process cannot act on SIGTERM
	p.escalate = time.AfterFunc(p.grace, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.leaderGone {
			p.signalGroup(syscall.SIGKILL)
		}
	})
}

// signalGroup sends sig to every process of the command's group. Errors
// mean the group is already empty.
func (p *Process) signalGroup(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

func (p *Process) collect(stopErr error, d time.Duration) (*Result, error) {
	state := p.cmd.ProcessState
	if state == nil {
		return nil, fmt.Errorf("waiting for %s: %w", p.commandLine, p.waitErr)
	}
	res := &Result{
		ExitCode:    state.ExitCode(),
		Output:      p.ring.render(p.redactor),
		Truncated:   p.ring.Truncated(),
		BytesTotal:  p.ring.Total(),
		Duration:    d,
		CommandLine: p.commandLine,
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode = -1
		res.Signal = signalName(ws.Signal())
	}
	return res, stopErr
}

// stopKind tells a deadline from a cancellation.
func stopKind(ctxErr error) error {
	if errors.Is(ctxErr, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return ErrCanceled
}
