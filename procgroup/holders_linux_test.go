package procgroup

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// patience bounds the wait for a process to end; it only turns a process
// left behind into a failure instead of a hang.
const patience = 30 * time.Second

// A process that left the group but still holds the output pipe when the
// drain grace ends is killed: it is the command's, and nothing else would
// end it.
func TestAProcessHoldingThePipePastTheDrainGraceIsKilled(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	dir := t.TempDir()
	left, exit := filepath.Join(dir, "left"), filepath.Join(dir, "exit")
	for _, f := range []string{left, exit} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The escapee reports its pid once it has its own session; the leader
	// exits only when the test has a pidfd for it, so the group kill at
	// the exit cannot be what ends it.
	cmd := sh(t, `setsid sh -c 'echo $$ > "$0"; exec sleep 6174' "$1" & read x < "$2"; echo done`)
	cmd.Args = append(cmd.Args, "sh", left, exit)
	var out bytes.Buffer
	var g Group
	if err := g.Start(cmd, Options{Stdout: &out, DrainGrace: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(left)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("no pid in %q", data)
	}
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Skipf("pidfd_open: %v", err)
	}
	t.Cleanup(func() {
		_ = unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
		unix.Close(pidfd)
	})
	if err := os.WriteFile(exit, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	res := g.Wait()
	if res.Err != nil || !res.OutputCut {
		t.Fatalf("exit %+v; want a normal exit with the output cut", res)
	}
	if !strings.Contains(out.String(), "done") {
		t.Errorf("output %q lacks the leader's own", out.String())
	}
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(patience/time.Millisecond))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("pid %d, which held the pipe past the drain grace, is still running", pid)
		}
		return
	}
}
