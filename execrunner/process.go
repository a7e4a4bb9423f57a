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

	"github.com/fisk-mcp/fisk-mcp/procgroup"
)

// Process is a running command. Its supervision (timeout, cancellation,
// killing the group, capturing output) runs on its own from Start onwards,
// whether or not anyone calls Wait.
type Process struct {
	group       procgroup.Group
	ring        *RingBuffer
	redactor    *Redactor
	rawOutput   bool
	commandLine string
	timeout     time.Duration

	done   chan struct{}
	result *Result
	err    error
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
	p := &Process{
		ring:        NewRingBuffer(c.CaptureLimit),
		redactor:    c.Redactor,
		rawOutput:   c.RawOutput,
		commandLine: line,
		timeout:     c.Timeout,
		done:        make(chan struct{}),
	}
	// The ring is the sink of both stdout and stderr: one pipe, so the
	// kernel orders the writes and the interleaving is exact. A process
	// that escaped the group may hold the pipe for a kill grace after the
	// leader's exit, no longer.
	opts := procgroup.Options{Stdout: p.ring, Stderr: p.ring, KillGrace: grace, DrainGrace: grace}
	if err := p.group.Start(newCmd(c), opts); err != nil {
		return nil, &StartError{CommandLine: line, Reason: startReason(c.Path, err), Err: err}
	}
	return p, nil
}

// newCmd prepares the exec.Cmd of c: no shell, stdin the null device. Its
// output and process group are procgroup's.
func newCmd(c Command) *exec.Cmd {
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
func (p *Process) Pid() int { return p.group.Pid() }

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
