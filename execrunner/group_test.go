package execrunner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const testGrace = 300 * time.Millisecond

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
	deadline := time.Now().Add(30 * time.Second)
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

func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	tests := []struct {
		name       string
		ignoreTerm bool
		signal     string
	}{
		{"SIGTERM suffices", false, "SIGTERM"},
		{"SIGKILL after the grace when SIGTERM is ignored", true, "SIGKILL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pids")
			c := familyCmd("hang", pidFile, tt.ignoreTerm)
			// Long enough for the helper to start its grandchild first; the
			// test fails loudly (no pids) rather than passing if it did not.
			c.Timeout = 2 * time.Second
			res, err := Run(context.Background(), c)
			expired := time.Now()
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("error %v, want ErrTimeout", err)
			}
			if want := "timed out after 2s; process group killed"; err.Error() != want {
				t.Fatalf("error text %q, want %q", err, want)
			}
			leader, grandchild := awaitPidFile(t, pidFile)
			if alive := waitGone(expired.Add(testGrace+time.Second), leader, grandchild); alive != nil {
				t.Fatalf("still running after the timeout: %v", alive)
			}
			if res == nil || res.Signal != tt.signal || res.ExitCode != -1 {
				t.Fatalf("result %+v, want death by %s", res, tt.signal)
			}
			if !strings.Contains(res.Output, strings.TrimSpace(mustRead(t, pidFile))) {
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
			canceled := time.Now()
			res, err := p.Wait()
			if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want ErrCanceled", err)
			}
			if !strings.HasPrefix(err.Error(), "canceled after ") || !strings.HasSuffix(err.Error(), "; process group killed") {
				t.Fatalf("error text %q", err)
			}
			if alive := waitGone(canceled.Add(testGrace+time.Second), leader, grandchild); alive != nil {
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
	finished := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit code %d", res.ExitCode)
	}
	leader, grandchild := awaitPidFile(t, pidFile)
	if alive := waitGone(finished.Add(testGrace+time.Second), leader, grandchild); alive != nil {
		t.Fatalf("left running after a normal exit: %v", alive)
	}
}

// A process that leaves the group cannot be killed with it, but it cannot
// hold the call open either: the capture stops reading its pipe after the
// grace.
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
