package execrunner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRunKeepsStdoutAndStderrInterleaving(t *testing.T) {
	res, err := Run(context.Background(), helperCmd("interleave", "200"))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := range 200 {
		fmt.Fprintf(&want, "out %d\nerr %d\n", i, i)
	}
	if res.Output != want.String() {
		t.Fatalf("output out of order:\n%s", res.Output)
	}
	if res.Truncated || res.BytesTotal != int64(want.Len()) {
		t.Fatalf("Truncated=%v BytesTotal=%d, want false %d", res.Truncated, res.BytesTotal, want.Len())
	}
}

func TestRunReportsExitCodesAndSignalsAsResults(t *testing.T) {
	tests := []struct {
		name     string
		cmd      Command
		exitCode int
		signal   string
	}{
		{"zero exit", helperCmd("exit", "0"), 0, ""},
		{"non-zero exit is a normal result", helperCmd("exit", "3"), 3, ""},
		{"death by signal is named", helperCmd("selfkill"), -1, "SIGKILL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), tt.cmd)
			if err != nil {
				t.Fatalf("error %v; a finished command is a result", err)
			}
			if res.ExitCode != tt.exitCode || res.Signal != tt.signal {
				t.Fatalf("ExitCode=%d Signal=%q, want %d %q", res.ExitCode, res.Signal, tt.exitCode, tt.signal)
			}
			if res.Duration <= 0 {
				t.Fatalf("Duration = %v", res.Duration)
			}
		})
	}
}

// The runner child's stdin is a pipe that never closes, like the protocol
// stream in stdio mode: the command must see EOF, not that stream.
func TestRunGivesTheCommandAnEmptyStdin(t *testing.T) {
	rep := runInRunner(t, runnerSpec{Mode: "read-stdin", Timeout: time.Minute})
	if rep.Err != "" {
		t.Fatalf("run failed: %s", rep.Err)
	}
	if got := rep.Result.Output; got != "read 0 bytes, err <nil>\n" {
		t.Fatalf("output %q, want an immediate EOF", got)
	}
}

func TestStartFailuresAreDistinctStartErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(plain, []byte("not a program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		cmd    Command
		reason string
		text   string
	}{
		{"missing path", Command{Path: filepath.Join(dir, "missing")}, StartNotFound, "not found (no such file or directory)"},
		{"name not in PATH", Command{Path: "no-such-binary-for-execrunner"}, StartNotFound, "not found (executable file not found in $PATH)"},
		{"file without exec permission", Command{Path: plain}, StartNotExecutable, "not executable (permission denied)"},
		{"directory", Command{Path: dir}, StartNotExecutable, "not executable (permission denied)"},
		{"missing working directory", Command{Path: os.Args[0], Dir: filepath.Join(dir, "gone")}, StartBadDir, "/gone\" unusable (no such file or directory)"},
		{"working directory is a file", Command{Path: os.Args[0], Dir: plain}, StartBadDir, "/plain-file\" unusable (not a directory)"},
		{"empty path", Command{}, StartNotFound, "not found (empty binary path)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(context.Background(), tt.cmd)
			if p != nil {
				t.Cleanup(func() { _, _ = p.Wait() })
			}
			var se *StartError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want *StartError", err, err)
			}
			if se.Reason != tt.reason || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("reason %q, text %q; want %q containing %q", se.Reason, err, tt.reason, tt.text)
			}
		})
	}
}

func TestStartWithDoneContextStartsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := Start(ctx, helperCmd("exit", "0"))
	if p != nil || !errors.Is(err, ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Start = %v, %v; want nil and ErrCanceled", p, err)
	}
}

func TestResultCommandLineIsEscapedAndRedacted(t *testing.T) {
	c := helperCmd("echo", "token=sk-secret-123456", "line\nbreak")
	c.Redactor = NewRedactor("sk-secret-123456")
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := DisplayCommandLine(os.Args[0], []string{"token=[redacted]", "line\nbreak"})
	if res.CommandLine != want {
		t.Fatalf("CommandLine %q, want %q", res.CommandLine, want)
	}
	if res.Output != "token=[redacted]\nline\nbreak\n" {
		t.Fatalf("Output %q", res.Output)
	}
}

func TestBytesSoFarIsSafeWhileTheCommandRuns(t *testing.T) {
	const size = 64 << 20
	p, err := Start(context.Background(), helperCmd("flood", fmt.Sprint(size)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var seen []int64
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			seen = append(seen, p.BytesSoFar())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	res, err := p.Wait()
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("BytesSoFar went backwards: %d then %d", seen[i-1], seen[i])
		}
	}
	if last := p.BytesSoFar(); last != size || res.BytesTotal != size {
		t.Fatalf("BytesSoFar %d, BytesTotal %d, want %d", last, res.BytesTotal, size)
	}
}

// The runner holds raw descriptors (the pipe's read end, a pidfd): every way
// a run can end must close them.
func TestRunsLeaveNoDescriptorOpen(t *testing.T) {
	checkRunsLeaveNoDescriptorOpen(t)
}

func checkRunsLeaveNoDescriptorOpen(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	openFDs := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	// The first run opens what lives as long as the process: the shared
	// null device, the runtime's poller.
	if _, err := Run(context.Background(), helperCmd("echo", "warm-up")); err != nil {
		t.Fatal(err)
	}
	before := openFDs()
	timeout := helperCmd("sleep")
	timeout.Timeout, timeout.KillGrace = 50*time.Millisecond, testGrace
	escape := helperCmd("escape")
	escape.KillGrace = testGrace
	runs := []struct {
		name    string
		cmd     Command
		escapes bool // leaves a process outside the group holding the pipe
	}{
		{"output", helperCmd("echo", "some output"), false},
		{"flood", helperCmd("flood", "1000000"), false},
		{"non-zero exit", helperCmd("exit", "3"), false},
		{"timeout", timeout, false},
		{"pipe held past the grace", escape, true},
		{"start failure", Command{Path: filepath.Join(t.TempDir(), "missing")}, false},
	}
	for _, r := range runs {
		res, err := Run(context.Background(), r.cmd)
		if r.escapes && err == nil {
			_, escaped := parsePids(t, res.Output)
			killOnCleanup(t, escaped)
		}
	}
	if after := openFDs(); after != before {
		t.Fatalf("%d descriptors open after the runs, %d before", after, before)
	}
}
