package elicit

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// The protocol versions the gate must serve: one where the SDK asks from the
// server, one where the client asks.
const (
	legacyVersion = testsupport.LegacyProtocol
	mrtrVersion   = testsupport.ModernProtocol
)

var versions = testsupport.Protocols

// fixture is a tiny MCP server with gated tools whose side effect is a
// counter: a test knows a command ran if and only if the counter moved.
type fixture struct {
	t    *testing.T
	gate *Gate
	srv  *mcp.Server
	ran  atomic.Int32

	mu          sync.Mutex
	decisions   []Decision // every decision, in order: Check's and the middleware's
	refusals    []Refusal  // what the middleware reported
	fingerprint string     // the tools' Prompt.Binding
	othersOnly  bool       // fixtureOptions.othersOnly

	// run, if set, is called where the command would run.
	run func(ctx context.Context)

	// gaveUp is closed when the middleware reports a decision of its own.
	gaveUp     chan struct{}
	gaveUpOnce sync.Once

	// decided receives the decisions Check returns, in order (the first 64).
	decided chan Decision
}

type fixtureOptions struct {
	gate          Options
	noMiddleware  bool
	clock         *fakeClock
	timer         *fakeTimer
	serverOptions *mcp.ServerOptions
	othersOnly    bool // Prompt.OthersOnly: the caller may not approve
}

func newFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	f := &fixture{t: t, gaveUp: make(chan struct{}), decided: make(chan Decision, 64), othersOnly: o.othersOnly}
	o.gate.OnDecision = func(_ context.Context, r Refusal) {
		f.record(r.Decision)
		f.mu.Lock()
		f.refusals = append(f.refusals, r)
		f.mu.Unlock()
		f.gaveUpOnce.Do(func() { close(f.gaveUp) })
	}
	if o.gate.ServerName == "" {
		o.gate.ServerName = "fixture-server"
	}
	if o.clock != nil && o.gate.Replay == nil {
		// The store refuses states issued before it started: start it on
		// the gate's clock.
		m, err := NewMemoryStore(MemoryOptions{Since: o.clock.Now(), Capacity: o.gate.ReplayCapacity})
		if err != nil {
			t.Fatal(err)
		}
		o.gate.Replay = m
	}
	g, err := NewGate(o.gate)
	if err != nil {
		t.Fatalf("NewGate: %v", err)
	}
	if o.clock != nil {
		g.now = o.clock.Now
	}
	if o.timer != nil {
		g.afterFunc = o.timer.afterFunc
	}
	f.gate = g
	f.srv = mcp.NewServer(&mcp.Implementation{Name: "fixture-server", Version: "v0.0.1"}, o.serverOptions)
	if !o.noMiddleware {
		f.srv.AddReceivingMiddleware(g.Middleware())
	}
	for _, name := range []string{"rm", "purge"} {
		f.srv.AddTool(&mcp.Tool{
			Name:        name,
			Description: "removes a thing; needs approval",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		}, f.handle)
	}
	return f
}

// handle is a gated tools/call handler written the way the server writes
// one: validate, Check, return the gate's result unless approved, run.
func (f *fixture) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Name string `json:"name"`
	}
	if len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
	}
	res, d, err := f.gate.Check(ctx, req, Prompt{
		Tool:        req.Params.Name,
		Arguments:   req.Params.Arguments,
		CommandLine: "fixture " + req.Params.Name + " -- " + in.Name,
		Trigger:     "ai:confirm",
		Binding:     f.currentFingerprint(),
		OthersOnly:  f.othersOnly,
	})
	f.record(d)
	select {
	case f.decided <- d:
	default: // a test that makes many decisions and reads none
	}
	if err != nil {
		return nil, err
	}
	if res != nil {
		return res, nil
	}
	f.ran.Add(1)
	if f.run != nil {
		f.run(ctx)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + in.Name}}}, nil
}

// setFingerprint changes the tools' fingerprint, as a reload that changed
// them would.
func (f *fixture) setFingerprint(fp string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fingerprint = fp
}

func (f *fixture) currentFingerprint() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fingerprint
}

// reported returns what the middleware reported of its own refusals.
func (f *fixture) reported() []Refusal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Refusal(nil), f.refusals...)
}

func (f *fixture) record(d Decision) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decisions = append(f.decisions, d)
}

// last returns the most recent decision.
func (f *fixture) last() Decision {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.decisions) == 0 {
		f.t.Fatal("the gate made no decision")
	}
	return f.decisions[len(f.decisions)-1]
}

func (f *fixture) codes() []Code {
	f.mu.Lock()
	defer f.mu.Unlock()
	var codes []Code
	for _, d := range f.decisions {
		codes = append(codes, d.Code)
	}
	return codes
}

// connect connects a client over in-memory transports at version.
func (f *fixture) connect(version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	f.t.Helper()
	return testsupport.Connect(f.t, f.srv, newClient(opts), version)
}

// serveHTTP serves the fixture over streamable HTTP on a real socket.
func (f *fixture) serveHTTP(stateless bool) string {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.srv },
		&mcp.StreamableHTTPOptions{Stateless: stateless})
	ts := httptest.NewServer(h)
	f.t.Cleanup(ts.Close)
	return ts.URL
}

func connectClient(t *testing.T, tr mcp.Transport, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return testsupport.ConnectClient(t, newClient(opts), tr, version)
}

// newClient is the client every test connects with.
func newClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
}

// asker is a client-side elicitation handler that records what it was
// asked and answers with a fixed result.
type asker struct {
	mu       sync.Mutex
	messages []string
	answer   func(ctx context.Context) (*mcp.ElicitResult, error)
}

func answering(action string, content map[string]any) *asker {
	return &asker{answer: func(context.Context) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: action, Content: content}, nil
	}}
}

func (a *asker) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	a.messages = append(a.messages, req.Params.Message)
	a.mu.Unlock()
	return a.answer(ctx)
}

func (a *asker) asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.messages...)
}

func (a *asker) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: a.handle}
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return testsupport.Call(t, cs, tool, args)
}

func text(res *mcp.CallToolResult) string { return testsupport.Text(res) }

// wantRefused checks that res is an isError refusal mentioning want and
// that nothing ran.
func (f *fixture) wantRefused(res *mcp.CallToolResult, code Code, want string) {
	t := f.t
	t.Helper()
	if !res.IsError {
		t.Errorf("result is not an error: %q", text(res))
	}
	if !strings.Contains(text(res), want) {
		t.Errorf("result text %q does not contain %q", text(res), want)
	}
	if got := f.last().Code; got != code {
		t.Errorf("decision = %s (%s), want %s", got, f.last().Detail, code)
	}
	if n := f.ran.Load(); n != 0 {
		t.Errorf("the command ran %d times, want 0", n)
	}
}

// fakeClock is the gate's clock in tests.
type fakeClock = testsupport.Clock

func newFakeClock() *fakeClock {
	return testsupport.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
}

// fakeTimer is a test-driven time.AfterFunc with the same Stop semantics.
type fakeTimer struct {
	mu     sync.Mutex
	timers []*fakeTimerEntry
	armed  chan struct{} // receives once per afterFunc call
}

type fakeTimerEntry struct {
	f             func()
	stopped, done bool
}

func newFakeTimer() *fakeTimer { return &fakeTimer{armed: make(chan struct{}, 16)} }

func (ft *fakeTimer) afterFunc(_ time.Duration, f func()) func() bool {
	e := &fakeTimerEntry{f: f}
	ft.mu.Lock()
	ft.timers = append(ft.timers, e)
	ft.mu.Unlock()
	ft.armed <- struct{}{}
	return func() bool {
		ft.mu.Lock()
		defer ft.mu.Unlock()
		if e.stopped || e.done {
			return false
		}
		e.stopped = true
		return true
	}
}

// fire runs every timer that has not been stopped, as if its time came.
func (ft *fakeTimer) fire() {
	ft.mu.Lock()
	var due []func()
	for _, e := range ft.timers {
		if !e.stopped && !e.done {
			e.done = true
			due = append(due, e.f)
		}
	}
	ft.mu.Unlock()
	for _, f := range due {
		f()
	}
}
