package procgroup

import (
	"bytes"
	"errors"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// sh is a command for a shell script: scripts are test inputs only, the
// callers of this package never run a shell.
func sh(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	path, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	return exec.Command(path, "-c", script)
}

// run starts cmd with opts and waits, failing the test if the start fails.
func run(t *testing.T, cmd *exec.Cmd, opts Options) Exit {
	t.Helper()
	var g Group
	if err := g.Start(cmd, opts); err != nil {
		t.Fatal(err)
	}
	return g.Wait()
}

// signalOf is the signal that ended cmd, or 0.
func signalOf(cmd *exec.Cmd) syscall.Signal {
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

func TestSinksFollowOSExecRules(t *testing.T) {
	const script = `echo a; echo b >&2; echo c`
	t.Run("one sink for both is one pipe, in the order written", func(t *testing.T) {
		var out bytes.Buffer
		exit := run(t, sh(t, script), Options{Stdout: &out, Stderr: &out})
		if exit.Err != nil || exit.OutputCut || out.String() != "a\nb\nc\n" {
			t.Fatalf("exit %+v, output %q", exit, out.String())
		}
	})
	t.Run("two sinks get a pipe each", func(t *testing.T) {
		var out, errOut bytes.Buffer
		exit := run(t, sh(t, script), Options{Stdout: &out, Stderr: &errOut})
		if exit.Err != nil || exit.OutputCut || out.String() != "a\nc\n" || errOut.String() != "b\n" {
			t.Fatalf("exit %+v, stdout %q, stderr %q", exit, out.String(), errOut.String())
		}
	})
	t.Run("nil is the null device", func(t *testing.T) {
		var errOut bytes.Buffer
		exit := run(t, sh(t, script), Options{Stderr: &errOut})
		if exit.Err != nil || errOut.String() != "b\n" {
			t.Fatalf("exit %+v, stderr %q", exit, errOut.String())
		}
		if exit := run(t, sh(t, script), Options{}); exit.Err != nil {
			t.Fatalf("exit %+v", exit)
		}
	})
}

func TestStartFailureIsTheStartError(t *testing.T) {
	var g Group
	err := g.Start(exec.Command(filepath.Join(t.TempDir(), "missing")), Options{Stdout: &bytes.Buffer{}})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Start err = %v, want fs.ErrNotExist", err)
	}
}

func TestExitStatusIsReported(t *testing.T) {
	cmd := sh(t, `exit 3`)
	exit := run(t, cmd, Options{})
	var exitErr *exec.ExitError
	if !errors.As(exit.Err, &exitErr) || cmd.ProcessState.ExitCode() != 3 || exit.Stopped != nil {
		t.Fatalf("exit %+v, state %v", exit, cmd.ProcessState)
	}
}

// signalSink reports its first write on ready: the script has run that far.
type signalSink struct {
	once  sync.Once
	ready chan struct{}
}

func (s *signalSink) Write(p []byte) (int, error) {
	s.once.Do(func() { close(s.ready) })
	return len(p), nil
}

func TestStopEndsAGroupThatIgnoresSIGTERM(t *testing.T) {
	reason := errors.New("given up")
	t.Run("no grace: SIGKILL at once", func(t *testing.T) {
		cmd := sh(t, `trap '' TERM; while :; do sleep 1; done`)
		var g Group
		if err := g.Start(cmd, Options{}); err != nil {
			t.Fatal(err)
		}
		if !g.Stop(reason) || g.Stop(errors.New("second")) {
			t.Fatal("the first Stop must stop the group, and only the first")
		}
		exit := g.Wait()
		if exit.Stopped != reason || signalOf(cmd) != syscall.SIGKILL {
			t.Fatalf("exit %+v, signal %v; want the first reason and SIGKILL", exit, signalOf(cmd))
		}
	})
	t.Run("a grace: SIGTERM, then SIGKILL", func(t *testing.T) {
		cmd := sh(t, `trap '' TERM; echo ready; while :; do sleep 1; done`)
		sink := &signalSink{ready: make(chan struct{})}
		var g Group
		if err := g.Start(cmd, Options{Stdout: sink, KillGrace: time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		exits := make(chan Exit, 1)
		go func() { exits <- g.Wait() }()
		<-sink.ready // the trap is set
		g.Stop(reason)
		select {
		case exit := <-exits:
			if exit.Stopped != reason || signalOf(cmd) != syscall.SIGKILL {
				t.Fatalf("exit %+v, signal %v; want the reason and SIGKILL", exit, signalOf(cmd))
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the group outlived SIGTERM and the grace")
		}
	})
}

func TestStopAfterTheExitDoesNothing(t *testing.T) {
	var g Group
	if err := g.Start(sh(t, `exit 0`), Options{}); err != nil {
		t.Fatal(err)
	}
	if exit := g.Wait(); exit.Err != nil {
		t.Fatal(exit.Err)
	}
	if g.Stop(errors.New("late")) {
		t.Fatal("Stop after the exit reported stopping the group")
	}
}

// A process that left the group and holds the pipe cannot hold Wait past
// the drain grace, and Exit says the output may be incomplete.
func TestAPipeHeldPastTheDrainGraceIsCut(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	// The script reports the pid only once the process has left the
	// group, through a FIFO, so the group kill at the exit cannot reach it.
	fifo := filepath.Join(t.TempDir(), "left")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := `setsid sh -c 'echo $$ > "$0"; exec sleep 6173' "$1" & read pid < "$1"; echo $pid`
	cmd := sh(t, script)
	cmd.Args = append(cmd.Args, "sh", fifo)
	var out bytes.Buffer
	exit := run(t, cmd, Options{Stdout: &out, DrainGrace: time.Millisecond})
	pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil || pid <= 0 {
		t.Fatalf("no pid in %q", out.String())
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if exit.Err != nil || !exit.OutputCut {
		t.Fatalf("exit %+v; want a normal exit with the output cut", exit)
	}
}
