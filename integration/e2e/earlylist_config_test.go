package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAKeptListIsKeyedByTheConfigurationTheStartRead passes the
// configuration through a pipe, as --config <(...) does: the same
// command line and environment, a different configuration each start.
// The second start's configuration excludes echo; the list it answers
// first must not be the first start's, which has echo.
func TestAKeptListIsKeyedByTheConfigurationTheStartRead(t *testing.T) {
	cache := t.TempDir()
	start := func(config string) *mcp.ClientSession {
		t.Helper()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteString(config); err != nil {
			t.Fatal(err)
		}
		w.Close()
		cmd := exec.Command(fiskMCP, serveArgs("--config", "/dev/fd/3", fixtureBin)...)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
		cmd.ExtraFiles = []*os.File{r}
		log := newLogBuffer()
		cmd.Stderr = log
		cs, err := client{protocol: legacyProtocol}.newClient("e2e").
			Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: legacyProtocol})
		r.Close()
		if err != nil {
			t.Fatalf("connecting: %v\n%s", err, log.String())
		}
		return cs
	}

	first := start("exclude: [\"^admin_\"]\n")
	if got := listedBytes(t, first); !bytes.Contains(got, []byte(`"name":"echo"`)) {
		t.Fatalf("the first start does not list echo:\n%.400s", got)
	}
	if err := first.Close(); err != nil { // the list is kept by the time it exits
		t.Fatal(err)
	}
	second := start("exclude: [\"^echo$\"]\n")
	defer second.Close()
	if got := listedBytes(t, second); bytes.Contains(got, []byte(`"name":"echo"`)) {
		t.Error("a start whose configuration excludes echo first listed it: the list another configuration made was kept under its key")
	}
}
