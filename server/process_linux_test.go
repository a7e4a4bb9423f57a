//go:build linux

package server

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// watchPids opens a pidfd on every pid in data (spawn writes "PARENT
// CHILD"), so the test can later wait for the processes to exit without
// polling.
func watchPids(t *testing.T, data string) map[int]int {
	t.Helper()
	fds := map[int]int{}
	for _, field := range strings.Fields(data) {
		pid, err := strconv.Atoi(field)
		if err != nil {
			t.Fatalf("pid file %q: %v", data, err)
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if errors.Is(err, unix.ESRCH) {
			fds[pid] = -1 // already gone
			continue
		}
		if err != nil {
			t.Fatalf("pidfd_open(%d): %v", pid, err)
		}
		t.Cleanup(func() {
			unix.Close(fd)
			// Never leave a process behind, whatever the test saw.
			_ = unix.Kill(pid, unix.SIGKILL)
		})
		fds[pid] = fd
	}
	if len(fds) != 2 {
		t.Fatalf("pid file %q: want two pids", data)
	}
	return fds
}

// awaitExit waits until every watched process has exited; a pidfd becomes
// readable when its process terminates.
func awaitExit(t *testing.T, fds map[int]int) {
	t.Helper()
	for pid, fd := range fds {
		if fd < 0 {
			continue
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(pfd, int(guard.Milliseconds()))
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				t.Fatalf("poll pidfd of %d: %v", pid, err)
			}
			if n == 0 {
				t.Fatalf("process %d still running after the call ended", pid)
			}
			break
		}
	}
}
