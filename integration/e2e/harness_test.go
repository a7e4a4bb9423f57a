package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// patience bounds every wait for a condition. Waits end as soon as the
// condition holds; this only turns a hang into a failure.
const patience = 30 * time.Second

// logBuffer collects a process's stderr (JSON log lines) and wakes waiters
// on every write.
type logBuffer struct{ testsupport.LogBuffer }

func newLogBuffer() *logBuffer { return &logBuffer{} }

// records parses every complete JSON line logged so far.
func (b *logBuffer) records() []map[string]any { return b.Records("") }

// waitRecord waits until a logged record satisfies match and returns it.
func (b *logBuffer) waitRecord(t *testing.T, what string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	return b.waitRecords(t, what, func(recs []map[string]any) map[string]any {
		for _, rec := range recs {
			if match(rec) {
				return rec
			}
		}
		return nil
	})
}

// waitRecords waits until find returns a record from all those logged so
// far.
func (b *logBuffer) waitRecords(t *testing.T, what string, find func([]map[string]any) map[string]any) map[string]any {
	t.Helper()
	return b.WaitRecords(t, what, patience, find)
}

// finalCalls returns the server's final log line for each call of tool, in
// order: one per call, leaving out the rounds that only asked a question.
func (b *logBuffer) finalCalls(tool string) []map[string]any {
	var out []map[string]any
	for _, r := range b.records() {
		if isFinalCall(r, tool) {
			out = append(out, r)
		}
	}
	return out
}

func isFinalCall(r map[string]any, tool string) bool {
	return r["msg"] == "tool call" && r["tool"] == tool && r["result"] != "input_required"
}

// callRecord waits for the final log line of the nth call (from 1) of tool.
func (b *logBuffer) nthCall(t *testing.T, tool string, n int) map[string]any {
	t.Helper()
	return b.waitRecords(t, fmt.Sprintf("for call %d of %s", n, tool), func(recs []map[string]any) map[string]any {
		seen := 0
		for _, r := range recs {
			if isFinalCall(r, tool) {
				if seen++; seen == n {
					return r
				}
			}
		}
		return nil
	})
}

// callRecord waits for the final log line of the first call of tool.
func (b *logBuffer) callRecord(t *testing.T, tool string) map[string]any {
	t.Helper()
	return b.nthCall(t, tool, 1)
}

// client describes the MCP client a test connects with.
type client struct {
	protocol string
	// elicit answers approval questions; nil means the client has no
	// elicitation capability.
	elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	// manual disables the SDK's automatic multi-round-trip retries, so the
	// test drives input-required results itself.
	manual      bool
	progress    func(*mcp.ProgressNotificationClientRequest)
	listChanged func()
	// subscribed, when set, is closed once the server acknowledges the
	// client's subscriptions/listen stream (2026-07-28 only): list changes
	// reach the client from then on.
	subscribed chan struct{}
	// env is added to the server's environment.
	env []string
	// messages, when set, receives every message the client writes and
	// reads, as mcp.LoggingTransport logs them: the bytes on the wire.
	messages io.Writer
}

// newClient makes the SDK client c describes.
func (c client) newClient(name string) *mcp.Client {
	mc := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0.0"}, c.options())
	if c.subscribed != nil {
		var once sync.Once
		mc.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "notifications/subscriptions/acknowledged" {
					once.Do(func() { close(c.subscribed) })
				}
				return next(ctx, method, req)
			}
		})
	}
	return mc
}

func (c client) options() *mcp.ClientOptions {
	o := &mcp.ClientOptions{
		ElicitationHandler: c.elicit,
		Capabilities:       &mcp.ClientCapabilities{},
	}
	if c.manual {
		o.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	if c.progress != nil {
		o.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { c.progress(r) }
	}
	if c.listChanged != nil {
		o.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { c.listChanged() }
	}
	return o
}

// session is one client connected to one fisk-mcp process.
type session struct {
	cs  *mcp.ClientSession
	log *logBuffer
	cmd *exec.Cmd
}

// serveArgs is the command line every served test uses: JSON logs at debug
// (the tests read them), then the test's own flags and apps.
func serveArgs(extra ...string) []string {
	return append([]string{"serve", "--log-format", "json", "--log-level", "debug"}, extra...)
}

// startStdio starts fisk-mcp serve over stdio with the given arguments and
// connects c to it. Closing the session (at cleanup) closes stdin, which
// ends the server.
func startStdio(t *testing.T, c client, args ...string) *session {
	t.Helper()
	cmd := exec.Command(fiskMCP, serveArgs(args...)...)
	cmd.Env = append(os.Environ(), c.env...)
	log := newLogBuffer()
	cmd.Stderr = log
	var transport mcp.Transport = &mcp.CommandTransport{Command: cmd}
	if c.messages != nil {
		transport = &mcp.LoggingTransport{Transport: transport, Writer: c.messages}
	}
	cs, err := c.newClient("e2e").
		Connect(t.Context(), transport, &mcp.ClientSessionOptions{ProtocolVersion: c.protocol})
	if err != nil {
		t.Fatalf("connecting to %v: %v\nstderr:\n%s", cmd.Args, err, log.String())
	}
	s := &session{cs: cs, log: log, cmd: cmd}
	t.Cleanup(func() {
		// Closing stdin ends the server; it must exit cleanly.
		if err := cs.Close(); err != nil {
			t.Errorf("closing the session: %v", err)
		}
		if t.Failed() {
			t.Logf("fisk-mcp stderr:\n%s", log.String())
		}
	})
	if got := cs.InitializeResult().ProtocolVersion; got != c.protocol {
		t.Fatalf("negotiated protocol %s, want %s", got, c.protocol)
	}
	return s
}

// startPiped starts fisk-mcp with args, its stdin and stdout as pipes for
// a test that speaks the protocol itself and its stderr in the returned
// buffer. The caller owns the process: it closes stdin and waits.
func startPiped(t *testing.T, args ...string) (cmd *exec.Cmd, stdin io.WriteCloser, stdout io.ReadCloser, logs *logBuffer) {
	t.Helper()
	cmd = exec.Command(fiskMCP, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err = cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs = newLogBuffer()
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdin, stdout, logs
}

// rawServer is fisk-mcp started with args, spoken to line by line.
type rawServer struct {
	peer   *testsupport.RawPeer
	stdin  io.WriteCloser // closing it is how a stdio client leaves
	logs   *logBuffer     // fisk-mcp's stderr
	exited <-chan error   // receives cmd.Wait's result
}

// startRaw starts fisk-mcp with args as a raw stdio peer; stdin is closed
// when the test ends, and stderr logged if it failed.
func startRaw(t *testing.T, args ...string) rawServer {
	t.Helper()
	cmd, stdin, stdout, logs := startPiped(t, args...)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		if t.Failed() {
			t.Logf("fisk-mcp stderr:\n%s", logs.String())
		}
	})
	return rawServer{peer: testsupport.NewRawPeer(t, stdin, stdout, patience), stdin: stdin, logs: logs, exited: exited}
}

func isExit(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

// call calls a tool and fails the test on a protocol error.
func (s *session) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return testsupport.Call(t, s.cs, name, args)
}

// envelope decodes the command envelope of a result, as a client sees it.
func envelope(t *testing.T, res *mcp.CallToolResult) testsupport.CommandResult {
	t.Helper()
	return testsupport.Envelope(t, res)
}

// text joins a result's text blocks.
func text(res *mcp.CallToolResult) string { return testsupport.Text(res) }

// args builds tool arguments with the fixture's required global flag.
func args(kv ...any) map[string]any {
	m := map[string]any{"context": "e2e"}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// await receives from ch, or fails the test after patience.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	return testsupport.Await(t, ch, patience, what)
}

// waitFor waits until cond holds, checking again whenever tick fires.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// alive reports whether pid is a process that has not exited (a zombie has
// exited and only waits to be reaped).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	// The state follows the parenthesised command name.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z' && stat[i+2] != 'X'
	}
	return true
}

// readPids reads the "PID CHILDPID" line the fixture's spawn writes.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading pid file: %v", err)
	}
	var pids []int
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Split(bufio.ScanWords)
	for sc.Scan() {
		n, err := strconv.Atoi(sc.Text())
		if err != nil {
			t.Fatalf("pid file %q: %v", raw, err)
		}
		pids = append(pids, n)
	}
	if len(pids) != 2 {
		t.Fatalf("pid file holds %q, want two pids", raw)
	}
	return pids
}

// fileReady reports whether path exists with some content (the fixture
// writes its files in one write).
func fileReady(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Size() > 0
}

// runFiskMCP runs fisk-mcp to completion and returns its outputs and exit code.
func runFiskMCP(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), patience)
	defer cancel()
	cmd := exec.CommandContext(ctx, fiskMCP, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("running fisk-mcp %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}
