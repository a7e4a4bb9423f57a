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
	out         capture // the output pipe's read end
	redactor    *Redactor
	commandLine string
	started     time.Time
	timeout     time.Duration
	grace       time.Duration

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
	p, err := start(ctx, c)
	if err != nil {
		return nil, err
	}
	// Run's caller waits anyway, so the supervision runs on its goroutine:
	// no goroutine to start, and no hand-off to wake it when the run ends.
	p.supervise(ctx)
	return p.result, p.err
}

// Start starts c in a new process group with an empty stdin and returns at
// once. A failure to start returns a *StartError; a context already done
// returns an error wrapping ErrCanceled (or ErrTimeout for a deadline), and
// nothing is started.
func Start(ctx context.Context, c Command) (*Process, error) {
	p, err := start(ctx, c)
	if err != nil {
		return nil, err
	}
	go p.supervise(ctx)
	return p, nil
}

// start starts c; its supervision is the caller's to run.
func start(ctx context.Context, c Command) (*Process, error) {
	line := c.CommandLine
	if line == "" {
		line = c.Redactor.DisplayCommandLine(c.Path, c.Args)
	}
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
	out, output, err := newCapture(ring)
	if err != nil {
		return nil, &StartError{CommandLine: line, Reason: StartFailed, Err: err}
	}
	cmd := newCmd(c, output)
	started := time.Now()
	err = cmd.Start()
	// The child has its own copies of the write end now; the parent's must
	// go, or the pipe would never report end-of-file.
	_ = output.Close()
	if err != nil {
		out.release()
		return nil, &StartError{CommandLine: line, Reason: startReason(c.Path, err), Err: err}
	}
	out.started(cmd.Process.Pid)
	return &Process{
		cmd:         cmd,
		ring:        ring,
		out:         out,
		redactor:    c.Redactor,
		commandLine: line,
		started:     started,
		timeout:     c.Timeout,
		grace:       grace,
		done:        make(chan struct{}),
	}, nil
}

// newCmd prepares the exec.Cmd of c: no shell, stdin the null device, the
// output pipe's write end for stdout and stderr, a new process group.
func newCmd(c Command, output *os.File) *exec.Cmd {
	env := c.Env
	if env == nil {
		env = Environ(os.Environ(), nil)
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = withPWD(env, c.Dir)
	cmd.Dir = c.Dir
	if null := nullDevice(); null != nil {
		cmd.Stdin = null
	}
	// The same *os.File for both makes os/exec hand the child that one pipe
	// as fd 1 and fd 2, with no pipe or copying goroutine of its own: the
	// kernel orders the writes, the interleaving is exact.
	cmd.Stdout, cmd.Stderr = output, output
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// nullDevice is the children's stdin, opened once for the server's lifetime
// instead of once per run (as os/exec does for a nil Stdin). Each child gets
// its own fd 0 onto it; reading the null device yields end-of-file whatever
// anyone else does with it, so sharing it carries nothing between runs. Nil
// if it cannot be opened: os/exec then tries on each run and reports why.
var nullDevice = sync.OnceValue(func() *os.File {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return nil
	}
	return f
})

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
