package server

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol versions every transport test runs under: the last one with the
// initialize handshake, and the one a v1.8.0 client asks for by default.
const (
	legacyVersion = testsupport.LegacyProtocol
	modernVersion = testsupport.ModernProtocol
)

var protocolVersions = testsupport.Protocols

// guard bounds every wait in a test so a broken server fails the test
// instead of hanging it; it is never how a test synchronises.
const guard = 60 * time.Second

// fixtureSet loads the fixture application as a tool set.
func fixtureSet(t testing.TB, p exposure.Policy, custom ...exposure.Tool) *exposure.ToolSet {
	t.Helper()
	set, err := exposure.Load(t.Context(), []exposure.App{{Path: fixtureBin}}, custom, p, exposure.LoadOptions{})
	if err != nil {
		t.Fatalf("loading the fixture: %v", err)
	}
	return set
}

// customSet builds a tool set of caller-supplied tools only.
func customSet(t testing.TB, tools ...exposure.Tool) *exposure.ToolSet {
	t.Helper()
	set, err := exposure.Build(nil, tools, exposure.Policy{})
	if err != nil {
		t.Fatalf("building the tool set: %v", err)
	}
	return set
}

// logBuffer collects JSON log output for assertions; safe for concurrent use.
type logBuffer struct{ testsupport.LogBuffer }

// records returns the JSON log records whose msg is msg.
func (b *logBuffer) records(msg string) []map[string]any { return b.Records(msg) }

// newServer returns a server over set with test-friendly defaults; its
// JSON logs go to the returned buffer.
func newServer(t testing.TB, cfg Config, set *exposure.ToolSet) (*Server, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if cfg.KillGrace == 0 {
		cfg.KillGrace = 200 * time.Millisecond
	}
	s, err := New(cfg, exposure.NewCurrent(set))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s, logs
}

// connect connects an SDK client to s over in-memory transports, at the
// given protocol version.
func connect(t testing.TB, s *Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.2.3"}, opts)
	return testsupport.Connect(t, s.mcp, client, version)
}

// call calls a tool and fails the test on a protocol error.
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return testsupport.Call(t, cs, name, args)
}

// envelope decodes a command result's structured content.
func envelope(t testing.TB, res *mcp.CallToolResult) CommandResult {
	t.Helper()
	return testsupport.Structured[CommandResult](t, res)
}

// text joins a result's text blocks.
func text(res *mcp.CallToolResult) string { return testsupport.Text(res) }

// exists reports whether path exists.
func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("stat %s: %v", path, err)
	}
	return err == nil
}

// tempPath is a fresh path in the test's temporary directory.
func tempPath(t *testing.T, name string) string {
	return filepath.Join(t.TempDir(), name)
}

// wait receives from ch or fails the test after guard.
func wait[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return testsupport.Await(t, ch, guard, what)
}

// background runs f in a goroutine and returns a channel with its result.
func background[T any](f func() T) <-chan T {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	return ch
}

func mustRegexps(t testing.TB, exprs ...string) []*regexp.Regexp {
	t.Helper()
	var out []*regexp.Regexp
	for _, e := range exprs {
		out = append(out, regexp.MustCompile(e))
	}
	return out
}
