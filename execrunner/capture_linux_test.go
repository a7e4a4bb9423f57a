package execrunner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/procgroup"
)

// withoutPidfd makes the runs of one test take the portable path, as on a
// kernel without pidfd_open: a goroutine reads the pipe while the
// supervisor waits for the leader with waitid.
func withoutPidfd(t *testing.T) {
	t.Helper()
	was := procgroup.SetPidfdUnavailable(true)
	t.Cleanup(func() { procgroup.SetPidfdUnavailable(was) })
}

// The guarantees hold on the portable path too: the capture keeps the
// interleaving, a normal exit kills what the leader left in its group, a
// timeout kills the group, and a process outside the group cannot hold the
// call open; and no descriptor is left open.
func TestPortablePathKeepsTheGuarantees(t *testing.T) {
	withoutPidfd(t)
	t.Run("interleaving", func(t *testing.T) {
		res, err := Run(context.Background(), helperCmd("interleave", "100"))
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for i := range 100 {
			fmt.Fprintf(&want, "out %d\nerr %d\n", i, i)
		}
		if res.Output != want.String() {
			t.Fatalf("output out of order:\n%s", res.Output)
		}
	})
	t.Run("normal exit kills grandchildren", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pids")
		if _, err := Run(context.Background(), familyCmd("exit", pidFile, true)); err != nil {
			t.Fatal(err)
		}
		leader, grandchild := awaitPidFile(t, pidFile)
		if alive := waitGone(leader, grandchild); alive != nil {
			t.Fatalf("left running after a normal exit: %v", alive)
		}
	})
	t.Run("timeout kills the group", func(t *testing.T) {
		run := runUntilTimeout(t, true, testGrace)
		if res, err := run.res, run.err; !errors.Is(err, ErrTimeout) || res == nil || res.Signal != "SIGKILL" {
			t.Fatalf("result %+v, error %v; want death by SIGKILL and ErrTimeout", res, err)
		}
		leader, grandchild := awaitPidFile(t, run.pidFile)
		if alive := waitGone(leader, grandchild); alive != nil {
			t.Fatalf("still running after the timeout: %v", alive)
		}
	})
	t.Run("process outside the group cannot hold the call open", func(t *testing.T) {
		c := helperCmd("escape")
		c.KillGrace = testGrace
		res, err := Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		_, escaped := parsePids(t, res.Output)
		killOnCleanup(t, escaped)
	})
	t.Run("no descriptor left open", checkRunsLeaveNoDescriptorOpen)
}

// Output the leader wrote before it exited is the command's output even
// when the supervisor, descheduled on a busy machine, reaches the end of the
// capture only after the kill grace has passed. A grace of a nanosecond
// makes that happen on every run: the deadline has passed before the first
// read after the exit. The flood helper's last write fills the pipe (it
// asks for 1 MiB) and exits, so megabytes are in flight when it does;
// before the capture took what the pipe held at the deadline, they were
// lost on about one run in three.
func TestOutputBufferedWhenTheGraceEndsIsKept(t *testing.T) {
	const size = 4_000_000
	paths := []struct {
		name  string
		setup func(*testing.T)
	}{
		{"pidfd", func(*testing.T) {}},
		{"portable", withoutPidfd},
	}
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			path.setup(t)
			for run := range 10 {
				c := helperCmd("flood", fmt.Sprint(size))
				c.KillGrace = time.Nanosecond
				res, err := Run(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				if res.BytesTotal != size {
					t.Fatalf("run %d captured %d of the %d bytes written before the exit", run, res.BytesTotal, size)
				}
			}
		})
	}
}
