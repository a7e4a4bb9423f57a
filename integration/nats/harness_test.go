package nats

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

const fiskMCPPackage = "github.com/fisk-mcp/fisk-mcp/cmd/fisk-mcp"

const natsSuite = "NATS CLI end-to-end (natscli)"

// The binaries every test needs, prepared once on first use (not in TestMain,
// so `go test -list` and benchmark runs do not build natscli).
var (
	prepareOnce sync.Once
	fiskMCPBin  string
	natsBin     string
	prepareErr  error // building fisk-mcp failed: always a test failure
	natsErr     error // installing natscli failed: see requireBinaries
	cleanups    []func()
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	os.Exit(code)
}

// requireBinaries returns the fisk-mcp and nats binaries, or ends the test:
// it fails when fisk-mcp does not build, and skips when natscli cannot be
// had, except that in CI (CI=true) only a download failure may skip.
func requireBinaries(t testing.TB) (fiskMCP, nats string) {
	t.Helper()
	prepareOnce.Do(func() {
		bin, cleanup, err := testsupport.Build(fiskMCPPackage, "fisk-mcp")
		if err != nil {
			prepareErr = err
			return
		}
		cleanups = append(cleanups, cleanup)
		fiskMCPBin = bin
		natsBin, natsErr = installNATS(context.Background())
	})
	if prepareErr != nil {
		t.Fatalf("building fisk-mcp: %v", prepareErr)
	}
	if natsErr != nil {
		var ie *installError
		inCI := os.Getenv("CI") == "true"
		if errors.As(natsErr, &ie) && (ie.fetch || !inCI) {
			testsupport.Skip(t, natsSuite, fmt.Sprintf("nats CLI %s not available: %v", natscliVersion, natsErr))
		}
		t.Fatalf("installing the nats CLI %s: %v", natscliVersion, natsErr)
	}
	testsupport.Ran(natsSuite)
	return fiskMCPBin, natsBin
}

// sandbox is a private home for the nats CLI: its contexts and nsc stores go
// here, and nothing of the user's own configuration can leak into a test.
type sandbox struct {
	home, config, data string
}

func newSandbox(t testing.TB) sandbox {
	dir := t.TempDir()
	return sandbox{
		home:   dir,
		config: filepath.Join(dir, "config"),
		data:   filepath.Join(dir, "data"),
	}
}

// env is the environment for fisk-mcp (and so for nats): the test's own,
// without NATS_* settings, with HOME and the XDG directories in the sandbox.
func (s sandbox) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "NATS_"), name == "HOME", strings.HasPrefix(name, "XDG_"):
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+s.home,
		"XDG_CONFIG_HOME="+s.config,
		"XDG_DATA_HOME="+s.data,
		"XDG_CACHE_HOME="+filepath.Join(s.home, "cache"),
	)
}

// cache is fisk-mcp's directory under the sandbox's user cache, where an
// earlier version kept what it found at start-up (see BenchmarkStartup).
func (s sandbox) cache() string {
	return filepath.Join(s.home, "cache", "fisk-mcp")
}

// serve starts `fisk-mcp serve ARGS... nats` over stdio in the sandbox and
// connects the SDK's client to it. The client declares no elicitation
// capability, so it cannot approve anything. The session and the process
// end with the test.
func serve(t *testing.T, sb sandbox, args ...string) *mcp.ClientSession {
	t.Helper()
	return serveLogged(t, sb, nil, args...)
}

// serveLogged is serve with every message the client sends and reads
// logged to messages, as mcp.LoggingTransport writes them; nil logs none.
func serveLogged(t *testing.T, sb sandbox, messages io.Writer, args ...string) *mcp.ClientSession {
	t.Helper()
	fiskMCP, nats := requireBinaries(t)
	cmd := exec.Command(fiskMCP, append(append([]string{"serve"}, args...), nats)...)
	cmd.Env = sb.env()
	stderr := &testsupport.LogBuffer{}
	cmd.Stderr = stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("fisk-mcp stderr:\n%s", stderr.String())
		}
	})

	client := mcp.NewClient(&mcp.Implementation{Name: "fisk-mcp-nats-test", Version: "1.0.0"}, nil)
	var transport mcp.Transport = &mcp.CommandTransport{Command: cmd}
	if messages != nil {
		transport = &mcp.LoggingTransport{Transport: transport, Writer: messages}
	}
	session, err := client.Connect(t.Context(), transport, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v\nstderr:\n%s", cmd, err, stderr.String())
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// listTools returns every tool the server lists, by name, following pages.
func listTools(t *testing.T, s *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	return testsupport.ListTools(t, s)
}

// call calls a tool and returns the result and all of it as text (every
// text content, then the structured content as JSON), so checks do not
// depend on how the server splits output between the two.
func call(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	if args == nil {
		args = map[string]any{} // a nil map would be sent as null, which is not an object
	}
	res := testsupport.Call(t, s, name, args)
	return res, resultText(res)
}

// ran decodes the command envelope of a result, failing the test when the
// result carries none (the command did not run).
func ran(t *testing.T, name string, res *mcp.CallToolResult) testsupport.CommandResult {
	t.Helper()
	var env testsupport.CommandResult
	raw, err := json.Marshal(res.StructuredContent)
	if err == nil && res.StructuredContent != nil {
		err = json.Unmarshal(raw, &env)
	}
	if res.StructuredContent == nil || err != nil || env.Command == "" {
		t.Fatalf("%s: the result is not a command envelope (%v):\n%s", name, err, resultText(res))
	}
	return env
}

func resultText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
			sb.WriteByte('\n')
		}
	}
	if res.StructuredContent != nil {
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res.StructuredContent); err != nil {
			fmt.Fprintf(&sb, "(structured content does not marshal: %v)", err)
		}
	}
	return sb.String()
}
