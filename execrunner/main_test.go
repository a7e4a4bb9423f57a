package execrunner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the command under test: with helperEnv set,
// TestMain runs one helper mode instead of the tests. The helpers are real
// processes doing exactly what the runner must survive.
const (
	helperEnv      = "EXECRUNNER_TEST_HELPER"
	helperCommand  = "EXECRUNNER_TEST_COMMAND" // runner mode: a runnerSpec, as JSON
	helperPidFile  = "EXECRUNNER_TEST_PIDFILE" // family mode: where to report pids
	helperIgnoreTM = "EXECRUNNER_TEST_IGNORE_TERM"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func runHelper(mode string, args []string) int {
	if os.Getenv(helperIgnoreTM) != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	switch mode {
	case "echo": // prints each argument on its own line
		for _, a := range args {
			fmt.Println(a)
		}
	case "interleave": // alternates stdout and stderr lines, each one write
		n, _ := strconv.Atoi(args[0])
		for i := range n {
			fmt.Fprintf(os.Stdout, "out %d\n", i)
			fmt.Fprintf(os.Stderr, "err %d\n", i)
		}
	case "flood": // writes args[0] bytes of floodPattern in big writes
		n, _ := strconv.ParseInt(args[0], 10, 64)
		return helperFlood(n)
	case "exit": // exits with code args[0]
		code, _ := strconv.Atoi(args[0])
		return code
	case "selfkill": // dies by SIGKILL
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Hour)
	case "read-stdin": // reads stdin to EOF
		n, err := io.Copy(io.Discard, os.Stdin)
		fmt.Printf("read %d bytes, err %v\n", n, err)
	case "env": // prints its environment and working directory
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
		wd, _ := os.Getwd()
		fmt.Println("cwd:" + wd)
	case "sleep": // outlives any test unless killed
		time.Sleep(time.Hour)
	case "family": // starts a grandchild, reports both pids, then args[0]: exit|hang
		return helperFamily(args[0])
	case "escape": // starts a grandchild in a new session holding the pipe, exits
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), helperEnv+"=sleep")
		gc.Stdout, gc.Stderr = os.Stdout, os.Stderr
		gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("%d %d\n", os.Getpid(), gc.Process.Pid)
	case "runner": // runs a Command in this process and reports memory use
		return helperRunner()
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 2
	}
	return 0
}

// helperCmd is a Command that re-executes the test binary in a helper mode.
func helperCmd(mode string, args ...string) Command {
	return Command{
		Path: os.Args[0],
		Args: args,
		Env:  Environ(append(os.Environ(), helperEnv+"="+mode), nil),
	}
}

// floodChunk is what the flood helper writes over and over; its length is
// no multiple of the pattern's period, so every offset of the stream is
// distinguishable in a window.
var floodChunk = func() []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\n" // 63
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = alphabet[i%len(alphabet)]
	}
	return b
}()

// floodBytes returns bytes [from, to) of the stream the flood helper writes.
func floodBytes(from, to int64) []byte {
	out := make([]byte, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, floodChunk[i%int64(len(floodChunk))])
	}
	return out
}

func helperFlood(n int64) int {
	// A bigger pipe means fewer wake-ups per gigabyte; the runner must not
	// depend on it, it only keeps the test fast.
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, 1, 1031 /* F_SETPIPE_SZ */, 1<<20)
	for n > 0 {
		k := min(n, int64(len(floodChunk)))
		if _, err := os.Stdout.Write(floodChunk[:k]); err != nil {
			return 1
		}
		n -= k
	}
	return 0
}

// helperFamily starts a grandchild in the same process group, writes
// "LEADER GRANDCHILD" pids to stdout and to the pid file (atomically, so a
// reader never sees half of it), then exits or hangs. The grandchild holds
// the output pipe, the worst case for the runner.
func helperFamily(then string) int {
	gc := exec.Command(os.Args[0])
	gc.Env = append(os.Environ(), helperEnv+"=sleep")
	gc.Stdout, gc.Stderr = os.Stdout, os.Stderr
	if err := gc.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	pids := fmt.Sprintf("%d %d", os.Getpid(), gc.Process.Pid)
	fmt.Println(pids)
	if path := os.Getenv(helperPidFile); path != "" {
		_ = os.WriteFile(path+".tmp", []byte(pids), 0o600)
		_ = os.Rename(path+".tmp", path)
	}
	if then == "hang" {
		time.Sleep(time.Hour)
	}
	return 0
}

// runnerSpec tells the runner helper which helper mode to run through Run.
type runnerSpec struct {
	Mode    string
	Args    []string
	Timeout time.Duration
}

// runnerReport is what the runner helper prints: the run and the peak
// resident memory of the process around it.
type runnerReport struct {
	Result       *Result
	Err          string
	HWMBeforeKiB int64
	HWMAfterKiB  int64
}

func helperRunner() int {
	var spec runnerSpec
	if err := json.Unmarshal([]byte(os.Getenv(helperCommand)), &spec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	c := helperCmd(spec.Mode, spec.Args...)
	c.Timeout = spec.Timeout
	var rep runnerReport
	rep.HWMBeforeKiB = peakRSSKiB()
	res, err := Run(context.Background(), c)
	rep.HWMAfterKiB = peakRSSKiB()
	rep.Result = res
	if err != nil {
		rep.Err = err.Error()
	}
	if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
		return 1
	}
	return 0
}

// runInRunner runs spec through Run inside a fresh child process whose
// stdin is a pipe that stays open (as in stdio mode, where it is the
// protocol stream), and returns the child's report.
func runInRunner(t *testing.T, spec runnerSpec) runnerReport {
	t.Helper()
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=runner", helperCommand+"="+string(js))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close() })
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("runner child: %v\n%s", err, stderr.String())
	}
	var rep runnerReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("runner report: %v\n%s", err, out)
	}
	return rep
}

// peakRSSKiB reads this process's peak resident set size (VmHWM).
func peakRSSKiB() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib
		}
	}
	return -1
}

// processGone reports whether pid has exited: no such process, or a zombie
// waiting for a parent to reap it (dead, holding no resources but its entry).
func processGone(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name, which may hold spaces.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	fields := strings.Fields(rest)
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// waitGone polls until every pid has exited, and reports the ones still
// alive after patience. Callers wait for processes the runner killed (or
// never started) before returning, so a working runner passes at once; the
// bound leaves the kernel all the time a busy machine takes to end them,
// and a process the runner failed to kill sleeps for an hour.
func waitGone(pids ...int) []int {
	deadline := time.Now().Add(patience)
	for {
		var alive []int
		for _, pid := range pids {
			if !processGone(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// killOnCleanup makes sure a test that fails midway leaves no helper behind.
func killOnCleanup(t *testing.T, pids ...int) {
	t.Cleanup(func() {
		for _, pid := range pids {
			if !processGone(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// parsePids reads "LEADER GRANDCHILD" from a helper's report.
func parsePids(t *testing.T, s string) (leader, grandchild int) {
	t.Helper()
	if _, err := fmt.Sscanf(strings.TrimSpace(s), "%d %d", &leader, &grandchild); err != nil {
		t.Fatalf("no pids in %q: %v", s, err)
	}
	return leader, grandchild
}
