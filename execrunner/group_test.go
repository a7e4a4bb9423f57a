package execrunner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

const testGrace = 300 * time.Millisecond

// patience bounds waits for what a working runner makes happen however
// slow the machine is (a killed process to be gone, a helper to report): it
// turns a hang into a failure and is never waited out on the passing path.
const patience = 30 * time.Second

// familyCmd runs the family helper: a leader that starts a grandchild in its
// group (holding the output pipe), reports both pids to pidFile, then exits
// or hangs. ignoreTerm makes both ignore SIGTERM, so only SIGKILL works.
func familyCmd(then, pidFile string, ignoreTerm bool) Command {
	c := helperCmd("family", then)
	c.Env = append(c.Env, helperPidFile+"="+pidFile)
	if ignoreTerm {
		c.Env = append(c.Env, helperIgnoreTM+"=1")
	}
	c.KillGrace = testGrace
	return c
}

// awaitPidFile polls for the pids the family helper reports once its
// grandchild runs.
func awaitPidFile(t *testing.T, path string) (leader, grandchild int) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			leader, grandchild = parsePids(t, string(b))
			killOnCleanup(t, leader, grandchild)
			return leader, grandchild
		}
		if time.Now().After(deadline) {
			t.Fatalf("helper never reported its pids: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// timedOut is a run of the hanging family helper that its timeout ended.
type timedOut struct {
	res     *Result
	err     error
	timeout time.Duration
	pidFile string // holds the helper's report
}

// runUntilTimeout runs the hanging family helper under a timeout that must
// fire after the helper started its grandchild and reported both pids, or
// there is no group to kill. The timeout counts from the start, so no event
// can hold it back: a run whose helper did not report before it fired (a
// slow machine) is run again with twice the time. The report is written
// before the helper hangs and the run returns only after the group was
// killed, so after Run it either exists or never will. The passing path
// waits one short timeout; slowness costs reruns, not a false failure.
func runUntilTimeout(t *testing.T, ignoreTerm bool, grace time.Duration) timedOut {
	t.Helper()
	dir := t.TempDir()
	for timeout := time.Second; ; timeout *= 2 {
		pidFile := filepath.Join(dir, "pids-"+timeout.String())
		c := familyCmd("hang", pidFile, ignoreTerm)
		c.Timeout, c.KillGrace = timeout, grace
		res, err := Run(context.Background(), c)
		if _, statErr := os.Stat(pidFile); statErr == nil {
			return timedOut{res: res, err: err, timeout: timeout, pidFile: pidFile}
		}
		if 2*timeout > patience {
			t.Fatalf("the helper never reported its pids before its timeout, the last of %v: %+v, %v", timeout, res, err)
		}
		t.Logf("the helper did not report its pids within its %v timeout; running it again with more time", timeout)
	}
}

func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	tests := []struct {
		name       string
		ignoreTerm bool
		grace      time.Duration
		signal     string
	}{
		// The grace only bounds a failure: the helper dies of SIGTERM
		// however long it takes the machine to deliver it.
		{"SIGTERM suffices", false, patience, "SIGTERM"},
		{"SIGKILL after the grace when SIGTERM is ignored", true, testGrace, "SIGKILL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := runUntilTimeout(t, tt.ignoreTerm, tt.grace)
			res, err := run.res, run.err
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("error %v, want ErrTimeout", err)
			}
			if want := fmt.Sprintf("timed out after %v; process group killed", run.timeout); err.Error() != want {
				t.Fatalf("error text %q, want %q", err, want)
			}
			leader, grandchild := awaitPidFile(t, run.pidFile)
			if alive := waitGone(leader, grandchild); alive != nil {
				t.Fatalf("still running after the timeout: %v", alive)
			}
			if res == nil || res.Signal != tt.signal || res.ExitCode != -1 {
				t.Fatalf("result %+v, want death by %s", res, tt.signal)
			}
			if !strings.Contains(res.Output, strings.TrimSpace(mustRead(t, run.pidFile))) {
				t.Fatalf("partial output lost: %q", res.Output)
			}
		})
	}
}

func TestCancelKillsTheWholeGroup(t *testing.T) {
	for _, ignoreTerm := range []bool{false, true} {
		name := map[bool]string{false: "SIGTERM suffices", true: "SIGKILL after the grace"}[ignoreTerm]
		t.Run(name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pids")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p, err := Start(ctx, familyCmd("hang", pidFile, ignoreTerm))
			if err != nil {
				t.Fatal(err)
			}
			leader, grandchild := awaitPidFile(t, pidFile)
			if leader != p.Pid() {
				t.Fatalf("helper pid %d, Pid() %d", leader, p.Pid())
			}
			cancel()
			res, err := p.Wait()
			if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want ErrCanceled", err)
			}
			if !strings.HasPrefix(err.Error(), "canceled after ") || !strings.HasSuffix(err.Error(), "; process group killed") {
				t.Fatalf("error text %q", err)
			}
			if alive := waitGone(leader, grandchild); alive != nil {
				t.Fatalf("still running after the cancel: %v", alive)
			}
			if res == nil || res.Signal == "" {
				t.Fatalf("result %+v, want death by signal", res)
			}
		})
	}
}

func TestNormalExitKillsGrandchildrenLeftInTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	res, err := Run(context.Background(), familyCmd("exit", pidFile, true))
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit code %d", res.ExitCode)
	}
	leader, grandchild := awaitPidFile(t, pidFile)
	if alive := waitGone(leader, grandchild); alive != nil {
		t.Fatalf("left running after a normal exit: %v", alive)
	}
}

// A process that leaves the group cannot be killed with it, but it cannot
// hold the call open either: the capture stops reading its pipe after the
// grace, and on Linux the process still holding the pipe then is killed.
func TestProcessThatLeftTheGroupCannotHoldTheCallOpen(t *testing.T) {
	c := helperCmd("escape")
	c.KillGrace = testGrace
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	_, escaped := parsePids(t, res.Output)
	killOnCleanup(t, escaped)
	if res.ExitCode != 0 {
		t.Fatalf("exit code %d", res.ExitCode)
	}
	if runtime.GOOS == "linux" {
		if alive := waitGone(escaped); len(alive) > 0 {
			t.Errorf("pid %d, which held the capture pipe past the grace, outlived the run", escaped)
		}
	}
}

func TestContextDeadlineIsATimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	c := helperCmd("sleep")
	c.KillGrace = testGrace
	_, err := Run(ctx, c)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want ErrTimeout wrapping the deadline", err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
