package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// nobody is the user the test runs fisk-mcp as.
const nobody = 65534

// TestServingProcessIsNotReadableByOtherProcessesOfItsUser runs fisk-mcp
// as an unprivileged user: its /proc entries (environment, memory,
// descriptors) belong to root, so another process of that user cannot
// read its token or its environment, while the commands it runs are the
// user's as usual, and run.
func TestServingProcessIsNotReadableByOtherProcessesOfItsUser(t *testing.T) {
	if os.Geteuid() != 0 {
		testsupport.Skip(t, "serving process unreadable by its user (root)", "needs root, to run fisk-mcp as another user")
	}
	testsupport.Ran("serving process unreadable by its user (root)")
	dir, err := os.MkdirTemp("", "fisk-mcp-dumpable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	shared := filepath.Join(dir, "shared")
	for _, d := range []string{dir, shared} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	bins := map[string]string{}
	for name, from := range map[string]string{"fisk-mcp": fiskMCP, "fixture": fixtureBin} {
		to := filepath.Join(dir, name)
		copyExecutable(t, from, to)
		bins[name] = to
	}

	cmd := exec.Command(bins["fisk-mcp"], serveArgs(bins["fixture"])...)
	cmd.Env = []string{"HOME=" + shared, "XDG_CACHE_HOME=" + shared, "PATH=/usr/bin:/bin"}
	cmd.Dir = shared
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	logs := newLogBuffer()
	cmd.Stderr = logs
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to fisk-mcp run as nobody: %v\n%s", err, logs.String())
	}
	t.Cleanup(func() { cs.Close() })

	if uid := procOwner(t, cmd.Process.Pid); uid != 0 {
		t.Errorf("fisk-mcp's /proc entries belong to uid %d, its own: another process of its user can read them", uid)
	}

	pidFile := filepath.Join(shared, "pids")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn", Arguments: args("context", "e2e", "pid-file", pidFile, "for", "1m")})
	}()
	waitFor(t, "the command's pid file", func() bool { return fileReady(pidFile) })
	for _, pid := range readPids(t, pidFile) {
		if uid := procOwner(t, pid); uid != nobody {
			t.Errorf("the command's process %d has /proc entries of uid %d, want its user's (%d)", pid, uid, nobody)
		}
	}
}

// procOwner is the owner of /proc/PID/environ.
func procOwner(t *testing.T, pid int) uint32 {
	t.Helper()
	fi, err := os.Stat(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Uid
}

// copyExecutable copies the executable from to to, executable by all.
func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
