package introspect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// grandchild is how the scripts below start the process they leave behind:
// an unusual duration tells it apart from whatever process may get its pid
// once it is gone.
const (
	grandchild        = "sleep 6173"
	grandchildCmdline = "sleep\x006173\x00"
)

// requireProc skips on systems without Linux's /proc, which these tests use
// to watch a process that is not their child.
func requireProc(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("process group supervision after exit needs Linux")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
}

// grandchildGone reports whether pid no longer runs the grandchild: no such
// process, a zombie, or another program under a reused pid.
func grandchildGone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// The state is the first field after the command name, which is in
	// parentheses and may itself contain spaces or parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
		if fields := strings.Fields(string(stat[i+1:])); len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X") {
			return true
		}
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	return string(cmdline) != grandchildCmdline
}

// awaitGrandchildGone waits, within a generous bound, for pid to be gone.
// The group was sent SIGKILL before Load returned, but the kernel ends a
// killed process asynchronously, so there is nothing to synchronise on but
// the process itself.
func awaitGrandchildGone(t *testing.T, pid int) {
	t.Helper()
	const bound = 10 * time.Second
	deadline := time.Now().Add(bound)
	for !grandchildGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still runs %v after Load returned", pid, bound)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// cleanupGrandchild kills pid at the end of the test if a failure left the
// grandchild running, after checking that pid still is the grandchild.
func cleanupGrandchild(t *testing.T, pid int) {
	t.Cleanup(func() {
		if !grandchildGone(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

func TestLoadKillsAGrandchildLeftByABinaryThatExitsNormally(t *testing.T) {
	requireProc(t)
	// Each script starts a grandchild, records its pid and exits 0 after
	// printing a valid document.
	cases := map[string]string{
		"detached from the output": grandchild + ` >/dev/null 2>&1 &`,
		// Before its group was killed on exit, this one also held stdout
		// open until waitDelay and failed the load.
		"holding the output": grandchild + ` &`,
	}
	for label, start := range cases {
		t.Run(label, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			path := script(t, fmt.Sprintf("%s\necho $! > %s\necho '{\"name\":\"app\"}'", start, pidFile))
			app, err := Load(context.Background(), path, Options{})
			raw, readErr := os.ReadFile(pidFile)
			pid, convErr := strconv.Atoi(strings.TrimSpace(string(raw)))
			if readErr != nil || convErr != nil || pid <= 0 {
				t.Fatalf("the script did not record its grandchild: %q, %v, %v", raw, readErr, convErr)
			}
			cleanupGrandchild(t, pid)
			if err != nil || app.Name != "app" {
				t.Errorf("Load = %+v, %v; want the document", app, err)
			}
			awaitGrandchildGone(t, pid)
		})
	}
}

func TestLoadKillsTheWholeProcessGroupWhenItGivesUp(t *testing.T) {
	requireProc(t)
	// The script starts a grandchild, reports its pid through a FIFO and
	// hangs; the test cancels once the pid arrived, so nothing is timed.
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	path := script(t, fmt.Sprintf(`%s & echo $! > %s; wait`, grandchild, fifo))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pids := make(chan int, 1)
	go func() {
		defer cancel()
		raw, err := os.ReadFile(fifo)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err == nil && pid > 0 {
			pids <- pid
		}
		close(pids)
	}()
	loadErr(t, ctx, path, Options{Timeout: time.Hour}, context.Canceled)
	pid, ok := <-pids
	if !ok {
		t.Fatal("the script never reported its grandchild")
	}
	cleanupGrandchild(t, pid)
	awaitGrandchildGone(t, pid)
}
