package nats

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkStartup measures, in one run, what a client waits for before it
// can offer nats's tools: the bare `nats --fisk-introspect` (the floor: no
// server can answer before the binary has described itself) and fisk-mcp's
// start → first tools/list over stdio with the SDK's CommandTransport
// (process start, introspection, decoding, schema compilation, the tool set,
// registration, the handshake and every page of the list), deferred (the
// default for nats), in full, and in full with output schemas, as a
// restart (a start after another in the same user cache directory, as a
// person's next start is) and as a first start, with that directory
// emptied beforehand (fisk-mcp keeps nothing there; a baseline from an
// earlier version may); and, apart, the content hash of the binary, which
// a start leaves until its start-up is over (see server.Server.StartupOver),
// so that no start measured here takes it. Compare them
// with benchstat; the ratio is what serving costs on top of the floor.
//
// Besides wall time, each reports cpu-ms/op: the user and system time of
// the process started (with fisk-mcp, the nats it ran, which it waited
// for), which a busy machine disturbs far less than the wall clock.
//
// With FISK_MCP_BASELINE naming a fisk-mcp built from another commit, each
// serve mode is measured for it as bin=before right next to the binary
// under test (bin=after), alternating, so that benchstat -col /bin
// compares the two from one run.
func BenchmarkStartup(b *testing.B) {
	fiskMCP, nats := requireBinaries(b)
	sb := newSandbox(b)
	type binary struct{ name, path string }
	bins := []binary{{"after", fiskMCP}}
	if base := os.Getenv(baselineEnv); base != "" {
		bins = []binary{{"before", base}, {"after", fiskMCP}}
	}

	// The floor, and the same run in the environment a load gives it
	// (collection off until a soft limit, see introspect.Load), which is
	// what fisk-mcp waits for of it.
	for _, floor := range []struct {
		name  string
		extra []string
	}{
		{"introspect", nil},
		{"introspect-one-shot-gc", []string{"GOGC=off", "GOMEMLIMIT=128MiB"}},
	} {
		b.Run(floor.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(nats, "--fisk-introspect")
				cmd.Env = append(sb.env(), floor.extra...)
				out, err := cmd.Output()
				if err != nil || len(out) == 0 {
					b.Fatalf("nats --fisk-introspect: %v", err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			reportCPU(b, cpu)
		})
	}
	// What binding tools to the binary's content costs: SHA-256 of the
	// whole file, read as a load reads it. A start takes it after its
	// first list, so it should not add to "serve" or "serve-first".
	b.Run("content-hash", func(b *testing.B) {
		fi, err := os.Stat(nats)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(fi.Size())
		start := processCPU(b)
		for b.Loop() {
			f, err := os.Open(nats)
			if err != nil {
				b.Fatal(err)
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, processCPU(b)-start)
	})
	for _, mode := range []struct {
		name  string
		args  []string
		tools int  // listed; 0: the deferred list, whatever its length
		first bool // as a first start: the user cache directory emptied
	}{
		{"serve", nil, 0, false},
		{"serve-first", nil, 0, true},
		{"serve-full", []string{"--defer", "never"}, natsVisibleLeaves, false},
		{"serve-full-first", []string{"--defer", "never"}, natsVisibleLeaves, true},
		{"serve-full-output-schema", []string{"--defer", "never", "--output-schema"}, natsVisibleLeaves, false},
	} {
		for _, bin := range bins {
			name := mode.name
			if len(bins) > 1 {
				name += "/bin=" + bin.name
			}
			b.Run(name, func(b *testing.B) { benchmarkServe(b, sb, bin.path, nats, mode.args, mode.tools, mode.first) })
		}
	}
	// The floor of serve-full: the same answers, recorded, given by a
	// server that does nothing but introspect nats first.
	b.Run("replay-full", func(b *testing.B) {
		benchmarkReplay(b, sb, fiskMCP, nats, []string{"--defer", "never"}, natsVisibleLeaves)
	})
	// The same full list for a client that only reads the bytes: the
	// server's share of serve-full, without the Go SDK client's own
	// decoding of 230 tools (some 20 ms of its CPU on every list).
	for _, bin := range bins {
		name := "serve-full-raw"
		if len(bins) > 1 {
			name += "/bin=" + bin.name
		}
		b.Run(name, func(b *testing.B) { benchmarkServeRaw(b, sb, bin.path, nats, []string{"--defer", "never"}) })
	}
}

// rawListing is what a client writes to have the tools listed over stdio:
// initialize, initialized and tools/list, one line each.
const rawListing = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fisk-mcp-startup-bench","version":"1.0.0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`

// benchmarkServeRaw measures start → the whole tools/list response read
// off fisk-mcp's stdout, decoding nothing but the line it ends with.
func benchmarkServeRaw(b *testing.B, sb sandbox, fiskMCP, nats string, extra []string) {
	args := append(append(append([]string{"serve"}, natsPolicy...), extra...), nats)
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(fiskMCP, args...)
		cmd.Env = sb.env()
		in, out := startPiped(b, cmd)
		// Written at once, as a client writes without waiting; stdin stays
		// open until the list is read, since its end ends the session.
		if _, err := io.WriteString(in, rawListing); err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReaderSize(out, 1<<20)
		var list []byte
		for range 2 { // the initialize result, then the list
			var err error
			if list, err = r.ReadBytes('\n'); err != nil {
				b.Fatalf("reading fisk-mcp's answers: %v", err)
			}
		}
		if !bytes.HasPrefix(list, []byte(`{"jsonrpc":"2.0","id":2,"result":{`)) || !bytes.Contains(list, []byte(`"tools":[`)) || len(list) < 100_000 {
			b.Fatalf("the second answer is not the full list: %.200s", list)
		}
		b.StopTimer()
		in.Close()
		if err := cmd.Wait(); err != nil {
			b.Fatalf("fisk-mcp: %v", err)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		b.StartTimer()
	}
	reportCPU(b, cpu)
}

// benchmarkServe measures start → first tools/list of fiskMCP serving nats
// with args; tools is how many it must list, 0 for any number. A first
// start has the user cache directory removed beforehand.
func benchmarkServe(b *testing.B, sb sandbox, fiskMCP, nats string, extra []string, tools int, first bool) {
	args := append(append(append([]string{"serve"}, natsPolicy...), extra...), nats)
	var before func()
	if first {
		before = func() {
			if err := os.RemoveAll(sb.cache()); err != nil {
				b.Fatal(err)
			}
		}
	}
	benchmarkStart(b, sb, func() *exec.Cmd { return exec.Command(fiskMCP, args...) }, tools, before)
}

// benchmarkStart measures start → first tools/list, with the SDK's client,
// of the server command makes; before, when not nil, runs untimed ahead of
// each start.
func benchmarkStart(b *testing.B, sb sandbox, command func() *exec.Cmd, tools int, before func()) {
	client := mcp.NewClient(&mcp.Implementation{Name: "fisk-mcp-startup-bench", Version: "1.0.0"}, nil)
	var cpu time.Duration
	for b.Loop() {
		if before != nil {
			b.StopTimer()
			before()
			b.StartTimer()
		}
		cmd := command()
		cmd.Env = sb.env()
		cs, err := client.Connect(b.Context(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatalf("connecting to %s: %v", cmd, err)
		}
		n := 0
		for _, err := range cs.Tools(b.Context(), nil) {
			if err != nil {
				b.Fatalf("listing tools: %v", err)
			}
			n++
		}
		if n == 0 || (tools != 0 && n != tools) {
			b.Fatalf("listed %d tools, want %d", n, tools)
		}
		b.StopTimer()
		_ = cs.Close() // closes stdin and waits for the server to exit
		if cmd.ProcessState != nil {
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		b.StartTimer()
	}
	reportCPU(b, cpu)
}

// benchmarkReplay measures start → first tools/list, with the SDK's
// client, of the replay server (internal/replay) answering with what
// fiskMCP answered with args: the introspection of nats, then the
// recorded answers and nothing else. It is the floor of any server that
// introspects at start and lists the same tools, the client's own
// reading of them included.
func benchmarkReplay(b *testing.B, sb sandbox, fiskMCP, nats string, extra []string, tools int) {
	args := append(append(append([]string{"serve"}, natsPolicy...), extra...), nats)
	recorded := record(b, sb, exec.Command(fiskMCP, args...))
	file := filepath.Join(b.TempDir(), "recorded")
	if err := os.WriteFile(file, recorded, 0o600); err != nil {
		b.Fatal(err)
	}
	replay, cleanup, err := testsupport.Build(replayPackage, "replay")
	if err != nil {
		b.Fatalf("building the replay server: %v", err)
	}
	b.Cleanup(cleanup)
	b.ResetTimer()
	benchmarkStart(b, sb, func() *exec.Cmd { return exec.Command(replay, nats, file) }, tools, nil)
}

// record returns the results of initialize and tools/list that the server
// cmd gives, one line each, as the replay server reads them.
func record(b *testing.B, sb sandbox, cmd *exec.Cmd) []byte {
	cmd.Env = sb.env()
	in, out := startPiped(b, cmd)
	defer func() {
		in.Close() // ends the session
		if err := cmd.Wait(); err != nil {
			b.Errorf("%s: %v", cmd, err)
		}
	}()
	if _, err := io.WriteString(in, rawListing); err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReaderSize(out, 1<<20)
	var recorded []byte
	for range 2 {
		line, err := r.ReadBytes('\n')
		if err != nil {
			b.Fatalf("recording the answers of %s: %v", cmd, err)
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || resp.Result == nil {
			b.Fatalf("recording the answers of %s: %.200s: %v", cmd, line, err)
		}
		recorded = append(append(recorded, resp.Result...), '\n')
	}
	return recorded
}

// startPiped starts cmd with pipes to its stdin and from its stdout.
func startPiped(b *testing.B, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return in, out
}

// replayPackage is the replay server's import path.
const replayPackage = "github.com/fisk-mcp/fisk-mcp/integration/nats/internal/replay"

// baselineEnv names a fisk-mcp binary built from another commit, for
// BenchmarkStartup to measure beside the one under test.
const baselineEnv = "FISK_MCP_BASELINE"

func reportCPU(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// processCPU is the user and system time this process has used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
