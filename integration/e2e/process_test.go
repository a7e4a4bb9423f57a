package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCancellationKillsTheProcessGroupAfterProgress starts a command that
// spawns a grandchild and runs for an hour, waits until the client has
// received a progress notification for it, cancels the call, and proves
// that neither process outlives the cancellation.
func TestCancellationKillsTheProcessGroupAfterProgress(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			progressed := make(chan string, 16)
			s := startStdio(t, client{protocol: proto, progress: progressTo(progressed)}, fixtureBin)
			cancelKillsTheGroup(t, s.cs, s.log, progressed, 1)
		})
	}
}

// progressTo forwards progress messages to ch without ever blocking.
func progressTo(ch chan string) func(*mcp.ProgressNotificationClientRequest) {
	return func(r *mcp.ProgressNotificationClientRequest) {
		select {
		case ch <- r.Params.Message:
		default:
		}
	}
}

// cancelKillsTheGroup runs the nth spawn call logged in log and cancels it
// once progress arrives.
func cancelKillsTheGroup(t *testing.T, cs *mcp.ClientSession, log *logBuffer, progressed chan string, n int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "spawn", Arguments: args("pid-file", pidFile, "for", "1h")}
		params.SetProgressToken("spawn-1")
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()

	select {
	case msg := <-progressed:
		if !strings.Contains(msg, "running for") {
			t.Errorf("progress message %q", msg)
		}
	case err := <-done:
		t.Fatalf("the call ended before any progress: %v", err)
	}
	waitFor(t, "the pid file", func() bool { return fileReady(pidFile) })
	pids := readPids(t, pidFile)
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("pid %d is not running before the cancel", pid)
		}
	}

	cancel()
	if err := <-done; err == nil {
		t.Errorf("a cancelled call returned a result")
	}
	if rec := log.nthCall(t, "spawn", n); rec["result"] != "cancelled" {
		t.Errorf("call log = %v", rec)
	}
	// The call's log line is written after the process group was killed
	// and reaped; the grandchild may still wait for init to reap it, which
	// alive ignores.
	for _, pid := range pids {
		waitFor(t, "pid to be gone", func() bool { return !alive(pid) })
	}
}

// TestConcurrencyCapHolds runs as many hour-long commands as there are
// slots, then one more: the extra call must not start until a slot frees.
func TestConcurrencyCapHolds(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) { concurrencyCapHolds(t, proto) })
	}
}

func concurrencyCapHolds(t *testing.T, proto string) {
	s := startStdio(t, client{protocol: proto}, "--concurrency", "2", fixtureBin)
	dir := t.TempDir()
	pidFiles := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")}

	type call struct {
		cancel context.CancelFunc
		done   chan *mcp.CallToolResult
	}
	start := func(pidFile string) call {
		ctx, cancel := context.WithCancel(t.Context())
		c := call{cancel: cancel, done: make(chan *mcp.CallToolResult, 1)}
		go func() {
			res, _ := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn", Arguments: args("pid-file", pidFile, "for", "1h")})
			c.done <- res
		}()
		t.Cleanup(cancel)
		return c
	}
	a := start(pidFiles[0])
	b := start(pidFiles[1])
	waitFor(t, "two commands to run", func() bool { return fileReady(pidFiles[0]) && fileReady(pidFiles[1]) })

	c := start(pidFiles[2])
	// A request sent after the third call is answered only once the server
	// has read the third call; the third command must still not be running.
	if err := s.cs.Ping(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if fileReady(pidFiles[2]) {
		t.Fatal("a third command started while two held both slots")
	}

	a.cancel()
	waitFor(t, "the queued command to start once a slot freed", func() bool { return fileReady(pidFiles[2]) })
	b.cancel()
	c.cancel()
	for _, pid := range append(readPids(t, pidFiles[0]), readPids(t, pidFiles[2])...) {
		waitFor(t, "pid to be gone", func() bool { return !alive(pid) })
	}
}

// TestSIGTERMDrainsInFlightCalls: a signal stops new work but lets a
// running command finish, its result reaches the client, and the server
// then exits cleanly.
func TestSIGTERMDrainsInFlightCalls(t *testing.T) {
	s := startStdio(t, client{protocol: modernProtocol}, fixtureBin)
	// spawn's pid file is a named pipe: writing it holds spawn until the
	// test reads it, so the command is still running when the drain
	// begins however slowly the signal is delivered, and it finishes on
	// its own once the test lets it go on.
	pidFile := filepath.Join(t.TempDir(), "pids")
	if err := syscall.Mkfifo(pidFile, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A reader of our own releases a spawn the test never read.
		if f, err := os.OpenFile(pidFile, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "spawn", Arguments: args("pid-file", pidFile, "for", "100ms")})
		done <- outcome{res, err}
	}()
	waitFor(t, "the command to run", func() bool { return runningWith(pidFile) })
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.log.waitRecord(t, "for the drain", func(r map[string]any) bool { return r["msg"] == "draining in-flight calls" })
	read := make(chan error, 1)
	go func() {
		_, err := os.ReadFile(pidFile)
		read <- err
	}()
	select {
	case err := <-read:
		if err != nil {
			t.Fatalf("reading spawn's pids: %v", err)
		}
	case <-time.After(patience):
		t.Fatal("spawn never wrote its pids")
	}
	if rec := s.log.callRecord(t, "spawn"); rec["result"] != "ok" || rec["exit_code"] != float64(0) {
		t.Fatalf("the drained command did not finish on its own: %v", rec)
	}
	got := <-done
	if got.err != nil {
		t.Fatalf("the drained call's result did not reach the client: %v", got.err)
	}
	if got.res.IsError || envelope(t, got.res).ExitCode != 0 {
		t.Fatalf("the drained call did not complete: %s", text(got.res))
	}
}

// runningWith reports whether a process whose command line holds arg is
// running (a unique path names the one command that was given it).
func runningWith(arg string) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(arg)) && alive(pid) {
			return true
		}
	}
	return false
}
