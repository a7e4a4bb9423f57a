package introspect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/procgroup"
)

// DefaultTimeout bounds an introspection when the caller's context has no
// deadline. The real nats CLI answers well within a second
// (BenchmarkStartup's introspect); 30 s only absorbs a cold disk or a
// loaded machine.
const DefaultTimeout = 30 * time.Second

// MaxDocument is the default bound on the introspection output. The nats CLI,
// one of the largest fisk applications, emits about 600 KB.
const MaxDocument = 16 << 20

// stderrLimit bounds the stderr kept for error messages.
const stderrLimit = 4 << 10

// waitDelay bounds how long Load reads the output pipes after the binary
// exited and its group was killed (a descendant that left the group may
// hold them open); past it the load fails with exec.ErrWaitDelay (reported
// as "exited with status -1"), as the document may be incomplete. It only
// bounds that failure, so it is generous: at one second a loaded machine,
// not scheduling the server for that long, failed introspections that way.
const waitDelay = 10 * time.Second

// oneShotGC is what Load adds to the environment of an introspection
// that does not set GOGC or GOMEMLIMIT itself. Every fisk application is
// a Go program, and an introspection is a short run that builds its whole
// model, prints it and exits: with collection off until the heap nears a
// soft limit, the runtime spends none of that run collecting
// (BenchmarkStartup's introspect and introspect-one-shot-gc compare the
// two), and a large application's peak memory is unchanged. The limit bounds
// what a large application may hold before collecting starts again; the
// document it prints is bounded far below it (MaxDocument).
var oneShotGC = []string{"GOGC=off", "GOMEMLIMIT=128MiB"}

// withOneShotGC returns env with oneShotGC added, unless env sets either
// variable already (the operator's choice stands, whole); env itself is
// not modified.
func withOneShotGC(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=") {
			return env
		}
	}
	return append(env[:len(env):len(env)], oneShotGC...)
}

// Options tunes Load. The zero value is ready to use.
type Options struct {
	// Env is the environment of the child, with the Go runtime's settings
	// for a one-shot run added (oneShotGC) unless it sets them.
	//
	// nil means os.Environ() UNSCRUBBED: every credential in the server's
	// environment (LLM and cloud keys, the server's own token) reaches the
	// binary. This package sits below execrunner, which owns the list of
	// credential variables, so it cannot scrub by itself; callers pass
	// execrunner.Environ(os.Environ(), scrub). exposure.Load, the way
	// fisk-mcp introspects, does that for them when its Env is nil.
	Env []string
	// Timeout applies only when ctx has no deadline; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxBytes bounds stdout; 0 means MaxDocument. More is a rejection.
	MaxBytes int64
}

// Load runs path --fisk-introspect and returns the decoded application
// model. The model is checked the way Walk checks it, so an application
// built with a fisk too old to precompute schemas fails here, naming the
// binary and the command. Every error is an *Error.
func Load(ctx context.Context, path string, opts Options) (*fisk.ApplicationModel, error) {
	fail := func(kind, err error) *Error { return &Error{Binary: path, Kind: kind, Err: err} }

	bin, err := resolve(path)
	if err != nil {
		return nil, err
	}
	out, err := run(ctx, path, bin, opts)
	if err != nil {
		return nil, err
	}
	app, err := decode(out)
	if err != nil {
		return nil, fail(ErrNotJSON, err)
	}
	if _, err := Walk(app); err != nil {
		e := fail(ErrFiskTooOld, err)
		var missing *MissingSchemaError
		if errors.As(err, &missing) {
			e.Command = missing.Commands[0]
		}
		return nil, e
	}
	return app, nil
}

// resolve finds the binary and checks that it can be executed, so the two
// most common operator mistakes get their own message.
func resolve(path string) (string, error) {
	if !strings.ContainsRune(path, os.PathSeparator) {
		bin, err := exec.LookPath(path)
		if err != nil {
			if errors.Is(err, exec.ErrDot) {
				return "", &Error{Binary: path, Kind: ErrNotFound, Err: errors.New("found only in the current directory; name it as ./" + path)}
			}
			return "", &Error{Binary: path, Kind: ErrNotFound, Err: errors.New("not in PATH")}
		}
		return bin, nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &Error{Binary: path, Kind: ErrNotFound, Err: errors.New("no such file")}
	case err != nil:
		return "", &Error{Binary: path, Kind: ErrNotExecutable, Err: err}
	case fi.IsDir():
		return "", &Error{Binary: path, Kind: ErrNotExecutable, Err: errors.New("it is a directory")}
	case fi.Mode()&0o111 == 0:
		return "", &Error{Binary: path, Kind: ErrNotExecutable, Err: errors.New("no execute permission")}
	}
	return path, nil
}

// run executes the introspection and returns stdout, classifying failures.
func run(ctx context.Context, name, bin string, opts Options) ([]byte, error) {
	timeout := time.Duration(0)
	if _, ok := ctx.Deadline(); !ok {
		timeout = opts.Timeout
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = MaxDocument
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}

	if ctx.Err() != nil {
		return nil, interrupted(name, ctx, timeout)
	}

	// runCtx also ends when the output overflows, which kills the group at
	// once instead of waiting for a flood to finish.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	stdout := &boundedBuffer{limit: limit, overflow: stop}
	stderr := &headBuffer{limit: stderrLimit}

	cmd := exec.Command(bin, "--fisk-introspect")
	cmd.Env = withOneShotGC(env)
	startErr, waitErr := runGroup(runCtx, cmd, stdout, stderr)
	if startErr != nil {
		if errors.Is(startErr, fs.ErrNotExist) {
			return nil, &Error{Binary: name, Kind: ErrNotExecutable, Err: fmt.Errorf("%w (a script whose interpreter is missing?)", startErr)}
		}
		return nil, &Error{Binary: name, Kind: ErrNotExecutable, Err: startErr}
	}

	switch {
	case stdout.overflowed:
		return nil, &Error{Binary: name, Kind: ErrTooLarge, Limit: limit}
	case waitErr == nil:
		return stdout.buf.Bytes(), nil
	case ctx.Err() != nil:
		return nil, interrupted(name, ctx, timeout)
	}
	e := &Error{Binary: name, Kind: ErrExit, ExitCode: -1, Stderr: stderr.String(), Err: waitErr}
	var exitErr *exec.ExitError
	if errors.As(waitErr, &exitErr) {
		e.ExitCode = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal().String()
		}
	}
	return nil, e
}

// runGroup runs cmd as the leader of a new process group until it exits
// and its output is read. The group is killed whole when ctx ends (at once:
// the answer is given up on, there is nothing for the binary to clean up),
// and when the leader exits: an application that exits normally but left
// a process behind (a helper it forked, a daemon it started) must not leave
// it running inside the server's lifetime, nor holding the output pipe
// open. A pipe still held waitDelay after the exit fails the run with
// exec.ErrWaitDelay. startErr is the failure to start; waitErr is
// exec.Cmd.Wait's error.
func runGroup(ctx context.Context, cmd *exec.Cmd, stdout, stderr io.Writer) (startErr, waitErr error) {
	var group procgroup.Group
	if err := group.Start(cmd, procgroup.Options{Stdout: stdout, Stderr: stderr, DrainGrace: waitDelay}); err != nil {
		return err, nil
	}
	stopOnEnd := context.AfterFunc(ctx, func() { group.Stop(context.Cause(ctx)) })
	defer stopOnEnd()
	exit := group.Wait()
	if exit.Err == nil && exit.OutputCut {
		return nil, exec.ErrWaitDelay
	}
	return nil, exit.Err
}

// interrupted classifies a run that ctx ended: a deadline (Load's own or the
// caller's) is ErrTimeout; a cancellation keeps the context's error as Kind.
func interrupted(name string, ctx context.Context, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Binary: name, Kind: ErrTimeout, Timeout: timeout, Err: ctx.Err()}
	}
	return &Error{Binary: name, Kind: ctx.Err(), Err: ctx.Err()}
}

// boundedBuffer keeps stdout up to limit bytes; one byte more marks the
// output as overflowed, calls overflow (which kills the group) and refuses
// every later write. The buffer is a field, not embedded: an embedded
// bytes.Buffer would lend its ReadFrom to io.Copy and bypass the bound.
type boundedBuffer struct {
	buf        bytes.Buffer
	limit      int64
	overflowed bool
	overflow   func()
}

var errOverflow = errors.New("output limit exceeded")

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if b.overflowed {
		return 0, errOverflow
	}
	if int64(b.buf.Len())+int64(len(p)) > b.limit {
		b.overflowed = true
		b.overflow()
		return 0, errOverflow
	}
	return b.buf.Write(p)
}

// headBuffer keeps the first limit bytes and discards the rest: the first
// lines of an error say what went wrong.
type headBuffer struct {
	buf   []byte
	limit int
	lost  bool
}

func (h *headBuffer) Write(p []byte) (int, error) {
	room := h.limit - len(h.buf)
	if room < len(p) {
		h.lost = true
		if room > 0 {
			h.buf = append(h.buf, p[:room]...)
		}
		return len(p), nil
	}
	h.buf = append(h.buf, p...)
	return len(p), nil
}

// String returns the kept stderr as one readable line: valid UTF-8, control
// characters (an ANSI sequence, a carriage return) replaced so they cannot
// garble the operator's terminal.
func (h *headBuffer) String() string {
	s := strings.ToValidUTF8(string(h.buf), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return '\uFFFD'
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if h.lost {
		s += " [...]"
	}
	return s
}
