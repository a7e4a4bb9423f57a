package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// Two replicas on two hosts serve byte-identical binaries from files with
// their own inodes and times. Each replica here runs in its own mount
// namespace, in which its own copy of the fixture is bind-mounted at one
// shared path: the same bytes at the same path, as two hosts would have
// them, with nothing else told apart.

// sharedStateKey writes the signing key every replica is given.
func sharedStateKey(t *testing.T) string {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.key")
	if err := os.WriteFile(path, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// requireMountNamespaces skips the test unless this process can start a
// child in a private mount namespace: root (CI runs as root) and unshare.
func requireMountNamespaces(t *testing.T) string {
	t.Helper()
	const suite = "replicas in mount namespaces (root, unshare)"
	if os.Geteuid() != 0 {
		testsupport.Skip(t, suite, "serving two copies of a binary at one path needs a mount namespace per replica (unshare --mount), which needs root; run the test as root, as CI does")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		testsupport.Skip(t, suite, "unshare (util-linux) is not installed; install util-linux to run this test")
	}
	if out, err := exec.Command(unshare, "--mount", "--propagation", "private", "true").CombinedOutput(); err != nil {
		testsupport.Skip(t, suite, fmt.Sprintf("this host does not allow mount namespaces (unshare --mount: %v: %s); run the test where root may create them", err, out))
	}
	testsupport.Ran(suite)
	return unshare
}

// startNamespacedReplica starts fisk-mcp over HTTP in its own mount namespace, where
// dir is bind-mounted over at; the app it serves is at/fisk-fixture.
func startNamespacedReplica(t *testing.T, unshare, dir, at string, extra ...string) *httpServer {
	t.Helper()
	serve := serveArgs(append(append([]string{"--http", "127.0.0.1:0"}, extra...), filepath.Join(at, "fisk-fixture"))...)
	script := `mount --bind "$1" "$2" && shift 2 && exec "$@"`
	cmd := exec.Command(unshare, append([]string{"--mount", "--propagation", "private", "sh", "-c", script, "sh", dir, at, fiskMCP}, serve...)...)
	return startHTTPCommand(t, cmd, "")
}

// ownCopy puts a copy of the fixture in a directory of its own, with the
// modification time given.
func ownCopy(t *testing.T, mtime time.Time) (dir string, ino uint64) {
	t.Helper()
	dir = t.TempDir()
	path := filepath.Join(dir, "fisk-fixture")
	testsupport.CopyFile(t, fixtureBin, path)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return dir, inode(t, path)
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// listed is every page of tools/list, as JSON.
func listed(t *testing.T, cs *mcp.ClientSession) []byte {
	t.Helper()
	var tools []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for {
		res, err := cs.ListTools(t.Context(), params)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		params.Cursor = res.NextCursor
	}
	data, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// noDirectElicitation is a manual 2026-07-28 client: the test carries every
// answer itself, from one replica to the other.
func noDirectElicitation(t *testing.T) client {
	return client{
		protocol: modernProtocol,
		manual:   true,
		elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server elicited directly on 2026-07-28")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}
}

func TestReplicasServingByteIdenticalCopiesListTheSameToolsAndAcceptEachOthersApprovals(t *testing.T) {
	unshare := requireMountNamespaces(t)
	key := sharedStateKey(t)
	at := t.TempDir() // empty here; each replica sees its own copy in it
	now := time.Now()
	dirA, inoA := ownCopy(t, now.Add(-time.Hour))
	dirB, inoB := ownCopy(t, now)
	if inoA == inoB {
		t.Fatal("the two copies share an inode")
	}
	flags := []string{"--stateless", "--state-key-file", key}
	a := startNamespacedReplica(t, unshare, dirA, at, flags...)
	b := startNamespacedReplica(t, unshare, dirB, at, flags...)
	// Each replica does serve its own copy at the shared path.
	for _, r := range []struct {
		srv *httpServer
		ino uint64
	}{{a, inoA}, {b, inoB}} {
		seen := filepath.Join("/proc", strconv.Itoa(r.srv.cmd.Process.Pid), "root", at, "fisk-fixture")
		if got := inode(t, seen); got != r.ino {
			t.Fatalf("replica %d sees inode %d at %s, want its own copy's %d", r.srv.cmd.Process.Pid, got, at, r.ino)
		}
	}

	ca, cb := a.connect(t, noDirectElicitation(t)), b.connect(t, noDirectElicitation(t))
	if la, lb := listed(t, ca), listed(t, cb); !bytes.Equal(la, lb) {
		t.Errorf("the replicas list different tools:\nA: %s\nB: %s", la, lb)
	}

	// Asked on A, answered on B: B accepts A's approval and runs it, once.
	path := filepath.Join(t.TempDir(), "touched")
	call := args("path", path)
	first, err := ca.CallTool(t.Context(), &mcp.CallToolParams{Name: "touch", Arguments: call})
	if err != nil || !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("replica A did not ask: %v %s", err, text(first))
	}
	var id string
	for k := range first.InputRequests {
		id = k
	}
	res, err := cb.CallTool(t.Context(), &mcp.CallToolParams{
		Name: "touch", Arguments: call, InputResponses: mcp.InputResponseMap{id: yes}, RequestState: first.RequestState,
	})
	if err != nil || res.IsError || res.NeedsInput() || !exists(path) {
		t.Fatalf("replica B refused replica A's approval: %v %s\nB's log:\n%s", err, text(res), b.log.String())
	}
	if rec := b.log.callRecord(t, "touch"); rec["result"] != "ok" {
		t.Errorf("B's call line = %v, want result ok", rec)
	}
	if n, m := len(a.log.finalCalls("touch")), len(b.log.finalCalls("touch")); n != 0 || m != 1 {
		t.Errorf("the command ran %d times on A and %d on B, want only once, on B", n, m)
	}
}
