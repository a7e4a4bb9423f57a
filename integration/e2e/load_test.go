package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// The load driver: many SDK clients, each its own MCP session (or none, on
// stateless HTTP), calling one fisk-mcp process serving the fixture at the
// same moment over loopback streamable HTTP. It measures the whole path a
// client sees: HTTP, the SDK on both ends, the server's call path, the slot
// pool and, for a command tool, starting and reaping the fixture process.

// loadClients is how many clients call at once.
const loadClients = 200

// baselineEnv names a fisk-mcp binary built from another commit. When set,
// BenchmarkHTTP200ConcurrentCalls measures it as bin=before right next to
// the binary under test (bin=after), on the same fixture and machine, so
// that benchstat -col /bin compares the two from one run.
const baselineEnv = "FISK_MCP_BASELINE"

// loadOp is one quick request a client makes.
type loadOp struct {
	name string
	do   func(context.Context, *mcp.ClientSession) error
}

var loadOps = []loadOp{
	// A read-only, ungated command: one fixture process per call, so it
	// measures process start and supervision under the slot pool.
	{"echo", func(ctx context.Context, cs *mcp.ClientSession) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args("subject", "load")})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("echo failed: %s", text(res))
		}
		return nil
	}},
	// A command that holds its slot 10ms while using no processor: it
	// measures the slot pool itself, which bounds it at --concurrency
	// (or a client's share of it) calls per 10ms.
	{"sleep", func(ctx context.Context, cs *mcp.ClientSession) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: args("for", "10ms")})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("sleep failed: %s", text(res))
		}
		return nil
	}},
	// Answered in-process, without a slot or a process: what the transport
	// and the server cost on their own.
	{"list", func(ctx context.Context, cs *mcp.ClientSession) error {
		res, err := cs.ListTools(ctx, nil)
		if err == nil && len(res.Tools) == 0 {
			err = errors.New("tools/list listed no tools")
		}
		return err
	}},
}

// BenchmarkHTTP200ConcurrentCalls measures rounds of 200 concurrent quick
// requests, one from each of 200 connected clients, against fisk-mcp
// serving the fixture over stateful and stateless HTTP at --concurrency 4
// (the default) and 32. One iteration is one round; it reports calls/s and
// the p50 and p99 latency of a single request over all rounds, and no
// ns/op. A server and its clients are set up outside the timed loop; bound
// the rounds with -benchtime=Nx.
func BenchmarkHTTP200ConcurrentCalls(b *testing.B) {
	type binary struct{ name, path string }
	bins := []binary{{"after", fiskMCP}}
	if base := os.Getenv(baselineEnv); base != "" {
		bins = []binary{{"before", base}, {"after", fiskMCP}}
	}
	for _, mode := range []string{"stateful", "stateless"} {
		for _, concurrency := range []int{4, 32} {
			for _, op := range loadOps {
				// The binaries alternate innermost, so each pair is measured
				// back to back under the same conditions.
				for _, bin := range bins {
					name := fmt.Sprintf("mode=%s/concurrency=%d/op=%s/bin=%s", mode, concurrency, op.name, bin.name)
					b.Run(name, func(b *testing.B) {
						extra := []string{"--concurrency", strconv.Itoa(concurrency)}
						if mode == "stateless" {
							extra = append(extra, "--stateless")
						}
						l := startLoad(b, bin.path, loadClients, extra...)
						var latencies []time.Duration
						before := l.cpu()
						for b.Loop() {
							latencies = append(latencies, l.round(b, op)...)
						}
						reportLatencies(b, latencies)
						reportCPU(b, l.cpu().since(before), len(latencies))
					})
				}
			}
		}
	}
}

// TestLoadRoundCallsOnceFromEveryClient keeps the load driver working: a
// round makes each request once from every client, and every one succeeds.
func TestLoadRoundCallsOnceFromEveryClient(t *testing.T) {
	for _, mode := range [][]string{nil, {"--stateless"}} {
		t.Run(fmt.Sprint("stateless=", mode != nil), func(t *testing.T) {
			l := startLoad(t, fiskMCP, 3, mode...)
			for _, op := range loadOps {
				if got := len(l.round(t, op)); got != 3 {
					t.Errorf("%s: a round of 3 clients timed %d requests", op.name, got)
				}
			}
		})
	}
}

// load is one fisk-mcp process over HTTP with its connected clients.
type load struct {
	clients []*mcp.ClientSession
	log     *testsupport.LogBuffer
	pid     int
}

// startLoad starts bin serving the fixture on a free loopback port with
// the production log settings (info, as JSON so the endpoint can be read),
// and connects n SDK clients to it. At cleanup the clients close, then the
// server gets SIGTERM and must exit cleanly.
func startLoad(tb testing.TB, bin string, n int, extra ...string) *load {
	tb.Helper()
	a := append([]string{"serve", "--log-format", "json", "--http", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(bin, append(a, fixtureBin)...)
	l := &load{log: &testsupport.LogBuffer{}}
	cmd.Stderr = l.log
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	l.pid = cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			tb.Errorf("%s did not exit cleanly on SIGTERM: %v\n%s", bin, err, l.log.String())
		}
	})
	rec := l.log.WaitRecords(tb, "announcing the endpoint", patience, func(recs []map[string]any) map[string]any {
		for _, r := range recs {
			if r["msg"] == "serving MCP over streamable HTTP" || r["level"] == "ERROR" {
				return r
			}
		}
		return nil
	})
	url, _ := rec["url"].(string)
	if !strings.HasSuffix(url, "/mcp") {
		tb.Fatalf("%s announced no endpoint: %v", bin, rec)
	}

	// One pool of kept-alive connections for all clients, as large as the
	// load: the default keeps two idle connections per host, which would
	// make most requests open a new one.
	pool := http.DefaultTransport.(*http.Transport).Clone()
	pool.MaxIdleConnsPerHost = 2 * n
	tb.Cleanup(pool.CloseIdleConnections)
	l.clients = make([]*mcp.ClientSession, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), patience)
			defer cancel()
			transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: pool}, MaxRetries: -1}
			l.clients[i], errs[i] = mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1.0.0"}, nil).
				Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: legacyProtocol})
		})
	}
	wg.Wait()
	for _, cs := range l.clients {
		if cs != nil {
			tb.Cleanup(func() { _ = cs.Close() })
		}
	}
	if err := errors.Join(errs...); err != nil {
		tb.Fatalf("connecting %d clients to %s: %v\n%s", n, bin, err, l.log.String())
	}
	return l
}

// round makes op once from every client at the same time and returns how
// long each took; any failure fails tb.
func (l *load) round(tb testing.TB, op loadOp) []time.Duration {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	took := make([]time.Duration, len(l.clients))
	errs := make([]error, len(l.clients))
	var wg sync.WaitGroup
	for i, cs := range l.clients {
		wg.Go(func() {
			start := time.Now()
			errs[i] = op.do(ctx, cs)
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		tb.Fatalf("%s from %d clients: %v\n%s", op.name, len(l.clients), err, l.log.String())
	}
	return took
}

// cpuUse is the processor time spent so far by each side of a load.
type cpuUse struct {
	server  time.Duration // the fisk-mcp process itself
	command time.Duration // the commands it ran and reaped
	client  time.Duration // this process: the SDK clients
	ok      bool          // false where /proc cannot tell (not Linux)
}

func (c cpuUse) since(before cpuUse) cpuUse {
	return cpuUse{c.server - before.server, c.command - before.command, c.client - before.client, c.ok && before.ok}
}

// cpu reads the server's times from /proc/PID/stat (utime, stime and the
// reaped children's cutime, cstime, in USER_HZ ticks, 100 a second on
// Linux) and this process's from getrusage.
func (l *load) cpu() cpuUse {
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return cpuUse{}
	}
	use := cpuUse{client: time.Duration(self.Utime.Nano() + self.Stime.Nano())}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(l.pid) + "/stat")
	if err != nil {
		return use
	}
	// The fields after the parenthesised command name, from the state (3).
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 15 {
		return use
	}
	tick := func(i int) time.Duration { // field i (from 1) of the stat line
		n, _ := strconv.ParseInt(fields[i-3], 10, 64)
		return time.Duration(n) * (time.Second / 100)
	}
	use.server = tick(14) + tick(15)
	use.command = tick(16) + tick(17)
	use.ok = true
	return use
}

// reportCPU reports the processor time one request cost each side, which
// tells what bounds the throughput: on a machine with P processors,
// calls/s cannot exceed P divided by their sum.
func reportCPU(b *testing.B, use cpuUse, calls int) {
	if !use.ok || calls == 0 {
		return
	}
	per := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(calls) }
	b.ReportMetric(per(use.server), "server-cpu-ms/call")
	b.ReportMetric(per(use.command), "command-cpu-ms/call")
	b.ReportMetric(per(use.client), "client-cpu-ms/call")
}

// reportLatencies reports the throughput over b's timed loop and the
// latency percentiles, replacing ns/op (which would be the time of a whole
// round).
func reportLatencies(b *testing.B, latencies []time.Duration) {
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	at := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(float64(len(latencies))/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}
