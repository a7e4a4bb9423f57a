package execrunner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Process is a running command. Its supervision (timeout, cancellation,
// killing the group, capturing output) runs on its own from Start onwards,
// whether or not anyone calls Wait.
type Process struct {
	cmd         *exec.Cmd
	ring        *RingBuffer
	redactor    *Redactor
	commandLine string
	started     time.Time

	// mu orders signals against reaping: no signal is sent to the group
	// once leaderGone is set, because the leader may then be reaped and its
	// group id reused.
	mu         sync.Mutex
	leaderGone bool
	stopErr    error       // why the run was stopped; nil if it was not
	escalate   *time.Timer // SIGKILL after the grace, once stopped

	reaped  bool  // the leader was already reaped by cmd.Wait
	waitErr error // cmd.Wait's error
	done    chan struct{}
	result  *Result
	err     error
}

// Run starts c and waits for it: Start followed by Wait.
func Run(ctx context.Context, c Command) (*Result, error) {
	p, err := Start(ctx, c)
	if err != nil {
		return nil, err
	}
	return p.Wait()
}

// Start starts c in a new process group with an empty stdin and returns at
// once. A failure to start returns a *StartError; a context already done
// returns an error wrapping ErrCanceled (or ErrTimeout for a deadline), and
// nothing is started.
func Start(ctx context.Context, c Command) (*Process, error) {
	line := displayRedacted(c.Path, c.Args, c.Redactor)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w before starting %s (%w)", stopKind(err), line, context.Cause(ctx))
	}
	if c.Path == "" {
		return nil, &StartError{CommandLine: "''", Reason: StartNotFound, Err: errors.New("empty binary path")}
	}
	if err := checkDir(c.Dir); err != nil {
		return nil, &StartError{CommandLine: line, Reason: StartBadDir, Err: err}
	}
	grace := c.KillGrace
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	ring := NewRingBuffer(c.CaptureLimit)
	cmd := newCmd(c, ring, grace)
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, &StartError{CommandLine: line, Reason: startReason(c.Path, err), Err: err}
	}
	p := &Process{
		cmd:         cmd,
		ring:        ring,
		redactor:    c.Redactor,
		commandLine: line,
		started:     started,
		done:        make(chan struct{}),
	}
	go p.supervise(ctx, c.Timeout, grace)
	return p, nil
}

// newCmd prepares the exec.Cmd of c: no shell, stdin the null device (the
// zero Stdin), one pipe for stdout and stderr, a new process group.
func newCmd(c Command, ring *RingBuffer, grace time.Duration) *exec.Cmd {
	env := c.Env
	if env == nil {
		env = Environ(os.Environ(), nil)
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = withPWD(env, c.Dir)
	cmd.Dir = c.Dir
	// The same writer for both makes os/exec hand the child one pipe as fd 1
	// and fd 2: the kernel orders the writes, the interleaving is exact.
	cmd.Stdout, cmd.Stderr = ring, ring
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A process that left the group can hold the pipe open after every
	// member we could kill is gone; stop reading after the grace.
	cmd.WaitDelay = grace
	return cmd
}

// Pid is the process id of the command, which is also its process group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// BytesSoFar is how many bytes the command has written so far to stdout and
// stderr together. It is safe to call at any time from any goroutine, and
// does not wait for the capture.
func (p *Process) BytesSoFar() int64 { return p.ring.Total() }

// Wait waits until the command has exited, its group is killed and its
// output captured. A non-zero exit or a death by signal is a normal Result
// with a nil error. After a timeout or a cancel, Wait returns the partial
// Result together with an error wrapping ErrTimeout or ErrCanceled. Wait may
// be called any number of times, from any goroutine.
func (p *Process) Wait() (*Result, error) {
	<-p.done
	return p.result, p.err
}

// checkDir reports an unusable working directory before the start: with
// SysProcAttr set, os.StartProcess leaves the check to the child's chdir,
// whose failure would be indistinguishable from a missing binary.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return &fs.PathError{Op: "chdir", Path: dir, Err: syscall.ENOTDIR}
	}
	return nil
}

func displayRedacted(path string, args []string, r *Redactor) string {
	if r != nil {
		redacted := make([]string, len(args))
		for i, a := range args {
			redacted[i] = r.Redact(a)
		}
		path, args = r.Redact(path), redacted
	}
	return r.Redact(DisplayCommandLine(path, args))
}
