package nats

import (
	"bytes"
	"os/exec"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNATSRestartAnswersWithTheKeptListAsItIsBuilt restarts fisk-mcp over
// nats, deferred and in full. nats writes the time it started into its
// help, so no two of its documents are alike; the second start finds the
// list the first kept all the same, sends it, and its own set lists
// exactly the same bytes (the server logs that the kept list held), which
// are the first start's.
func TestNATSRestartAnswersWithTheKeptListAsItIsBuilt(t *testing.T) {
	for _, mode := range []string{"auto", "never"} {
		t.Run(mode, func(t *testing.T) {
			sb := newSandbox(t)
			args := append([]string{"serve", "--log-format", "json", "--log-level", "debug", "--defer", mode}, natsPolicy...)
			first, _ := startLogged(t, sb, args)
			want := listedJSON(t, first)
			first.Close()
			// The next start is in a later second of nats's clock, so
			// that the time it writes into its help differs.
			for listedAt := time.Now().Unix(); time.Now().Unix() == listedAt; {
				time.Sleep(10 * time.Millisecond)
			}
			second, logs := startLogged(t, sb, args)
			if got := listedJSON(t, second); !bytes.Equal(got, want) {
				t.Errorf("the second start lists %d bytes unlike the first's %d", len(got), len(want))
			}
			// The set is completed, and said so, before serving is
			// announced; a start that found no list completes nothing.
			logs.WaitRecords(t, "the second start to announce it serves", time.Minute, func(recs []map[string]any) map[string]any {
				for _, r := range recs {
					if r["msg"] == "serving MCP over stdio" {
						return r
					}
				}
				return nil
			})
			completed := logs.Records("tool set completed")
			if len(completed) != 1 || completed[0]["early_list_kept"] != true {
				t.Errorf("the second start logged %v, want its set completed with the kept list", completed)
			}
		})
	}
}

// startLogged starts fisk-mcp with args and nats in the sandbox, connects
// the SDK's client, and returns the session and the server's logs.
func startLogged(t *testing.T, sb sandbox, args []string) (*mcp.ClientSession, *testsupport.LogBuffer) {
	t.Helper()
	fiskMCP, nats := requireBinaries(t)
	cmd := exec.Command(fiskMCP, append(args, nats)...)
	cmd.Env = sb.env()
	logs := &testsupport.LogBuffer{}
	cmd.Stderr = logs
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("fisk-mcp stderr:\n%s", logs.String())
		}
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fisk-mcp-nats-test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v\n%s", cmd, err, logs.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs, logs
}
