package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// earlyOf returns the Early a server over set keeps, as a start keeps it
// for the next.
func earlyOf(t *testing.T, cfg Config, set *exposure.ToolSet) *Early {
	t.Helper()
	s, _ := newServer(t, cfg, set)
	e := s.Early()
	if e == nil {
		t.Fatal("a server over the fixture keeps no list")
	}
	return e
}

// newEarly is NewEarly with the test defaults of newServer; it records the
// names the server registers with the SDK, after its own early
// registrations, in registered.
func newEarly(t *testing.T, cfg Config, e *Early) (*Server, *logBuffer, *registrations) {
	t.Helper()
	logs := &logBuffer{}
	if cfg.Logger == nil {
		cfg.Logger = testLogger(logs)
	}
	if cfg.KillGrace == 0 {
		cfg.KillGrace = 200 * time.Millisecond
	}
	s, err := NewEarly(cfg, e)
	if err != nil {
		t.Fatalf("NewEarly: %v", err)
	}
	regs := &registrations{}
	s.onAddTools = regs.add
	return s, logs, regs
}

type registrations struct {
	mu    sync.Mutex
	names []string
}

func (r *registrations) add(names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, names...)
}

func (r *registrations) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.names...)
}

// listBytes is the list a client receives, as this server encodes it.
func listBytes(t *testing.T, cs *mcp.ClientSession) []byte {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	b, err := EncodeTools(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEarlyServerListsTheKeptListAndCallsWaitForTheSet: before it has a
// set, a server NewEarly made lists exactly what the server it was kept
// from listed, deferred and in full; a call waits for the set and then
// runs on it; and a set whose list is the kept one changes no
// registration.
func TestEarlyServerListsTheKeptListAndCallsWaitForTheSet(t *testing.T) {
	for _, mode := range []DeferMode{DeferNever, DeferAlways} {
		t.Run(string(mode), func(t *testing.T) {
			set := fixtureSet(t, exposure.Policy{})
			cfg := Config{Defer: mode}
			want, _ := newServer(t, cfg, set)
			wantList := listBytes(t, connect(t, want, legacyVersion, nil))

			waiting := make(chan struct{})
			cfg.AwaitingSet = func() { close(waiting) }
			s, _, regs := newEarly(t, cfg, earlyOf(t, Config{Defer: mode}, set))
			cs := connect(t, s, legacyVersion, nil)
			if got := listBytes(t, cs); !bytes.Equal(got, wantList) {
				t.Fatalf("the early list is\n%s\nwant\n%s", got, wantList)
			}

			name, args := "echo", map[string]any{"context": "test", "subject": "early"}
			if mode == DeferAlways {
				name, args = anyExecutor.name, map[string]any{"name": "echo", "arguments": args}
			}
			called := background(func() *mcp.CallToolResult { return call(t, cs, name, args) })
			wait(t, waiting, "the call to wait for the set")
			if !s.Complete(set) {
				t.Error("Complete reported a list other than the kept one")
			}
			res := wait(t, called, "the call to return once the set is in force")
			if res.IsError || !strings.Contains(text(res), "early") {
				t.Fatalf("the call that waited got %q", text(res))
			}
			if got := regs.all(); len(got) != 0 {
				t.Errorf("completing with the kept list registered %v again with the SDK", got)
			}
			if got := listBytes(t, cs); !bytes.Equal(got, wantList) {
				t.Errorf("the list after Complete is\n%s\nwant\n%s", got, wantList)
			}
			// The completed server keeps what it was given.
			if e := s.Early(); e == nil || e.Deferred != (mode == DeferAlways) {
				t.Errorf("the completed server keeps %v", e)
			}
		})
	}
}

// TestEarlyServerCompletedWithAnotherSetTellsClients: a set whose list is
// not the kept one (a tool denied since) is put in force all the same;
// Complete says so, the client is told the list changed, the new list
// lacks the tool, and a call of it is a call of an unknown tool.
func TestEarlyServerCompletedWithAnotherSetTellsClients(t *testing.T) {
	kept := earlyOf(t, Config{}, fixtureSet(t, exposure.Policy{}))
	set := fixtureSet(t, exposure.Policy{Exclude: []*regexp.Regexp{regexp.MustCompile(`^echo$`)}})
	s, _, regs := newEarly(t, Config{}, kept)
	opts, changed, _ := listChangedClient(legacyVersion)
	cs := connect(t, s, legacyVersion, opts)
	if !bytes.Contains(listBytes(t, cs), []byte(`"name":"echo"`)) {
		t.Fatal("the kept list lacks echo")
	}
	if s.Complete(set) {
		t.Fatal("Complete reported the kept list for a set without echo")
	}
	wait(t, changed, "list_changed after a Complete that changed the list")
	if bytes.Contains(listBytes(t, cs), []byte(`"name":"echo"`)) {
		t.Error("echo is still listed after Complete with a set that excludes it")
	}
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"context": "test", "subject": "x"}})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "echo"`) {
		t.Errorf("a call of the excluded tool got %v, want unknown tool", err)
	}
	if got := regs.all(); len(got) != 0 {
		t.Errorf("excluding a tool registered %v again; removing it is all it takes", got)
	}
}

// TestEarlyServerWithAKeptListWhoseTextChangedTellsClients: when only the
// text of the list differs (the SDK's registrations are the same), the
// client is told all the same, and gets the set's list.
func TestEarlyServerWithAKeptListWhoseTextChangedTellsClients(t *testing.T) {
	set := fixtureSet(t, exposure.Policy{})
	kept := earlyOf(t, Config{}, set)
	for i, tool := range kept.Listed {
		if tool.Name == "echo" {
			kept.Listed[i].Wire = bytes.Replace(tool.Wire, []byte(`"description":"`), []byte(`"description":"OLD `), 1)
		}
	}
	s, _, regs := newEarly(t, Config{}, kept)
	opts, changed, _ := listChangedClient(legacyVersion)
	cs := connect(t, s, legacyVersion, opts)
	if !bytes.Contains(listBytes(t, cs), []byte(`"description":"OLD `)) {
		t.Fatal("the early list is not the kept one")
	}
	if s.Complete(set) {
		t.Fatal("Complete reported the kept list though its text differs")
	}
	wait(t, changed, "list_changed after a Complete that changed the list's text")
	if bytes.Contains(listBytes(t, cs), []byte(`OLD`)) {
		t.Error("the kept text is still listed after Complete")
	}
	if got := regs.all(); len(got) != 1 {
		t.Errorf("registered %v again, want the one registration that has the SDK tell clients", got)
	}
}

// TestEarlyServerAbandonedAnswersWaitingCallsThatNothingRan: when the set
// never comes, a call waiting for it is answered that nothing ran, with
// the reason.
func TestEarlyServerAbandonedAnswersWaitingCallsThatNothingRan(t *testing.T) {
	waiting := make(chan struct{})
	s, _, _ := newEarly(t, Config{AwaitingSet: func() { close(waiting) }}, earlyOf(t, Config{}, fixtureSet(t, exposure.Policy{})))
	cs := connect(t, s, legacyVersion, nil)
	pidFile := tempPath(t, "pid")
	called := background(func() *mcp.CallToolResult {
		return call(t, cs, "spawn", map[string]any{"context": "test", "for": "1h", "pid-file": pidFile})
	})
	wait(t, waiting, "the call to wait for the set")
	s.Abandon(context.DeadlineExceeded)
	res := wait(t, called, "the waiting call to be answered")
	if !res.IsError || !strings.Contains(text(res), "nothing ran: the server could not load its tools") {
		t.Errorf("the waiting call got %q", text(res))
	}
	if exists(t, pidFile) {
		t.Error("spawn ran on a server that has no set")
	}
}

// TestNewEarlyRefusesARegistrationThatDoesNotDecode: a kept list that is
// not one this server wrote is an error, not a server.
func TestNewEarlyRefusesARegistrationThatDoesNotDecode(t *testing.T) {
	for _, wire := range []string{`{"name":"other","inputSchema":{"type":"object"}}`, `not json`, `{"name":"x","inputSchema":{"type":"string"}}`} {
		e := &Early{Registered: []EarlyTool{{Name: "x", Wire: json.RawMessage(wire)}}}
		if _, err := NewEarly(Config{Logger: testLogger(&logBuffer{})}, e); err == nil {
			t.Errorf("NewEarly accepted the registration %s", wire)
		}
	}
	if _, err := NewEarly(Config{}, nil); err == nil {
		t.Error("NewEarly accepted no list")
	}
}

func testLogger(logs *logBuffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
