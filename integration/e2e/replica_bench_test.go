package e2e

import (
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/natstest"
)

// BenchmarkApprovalRoundTrip is one approved gated call as a 2026-07-28
// client makes it over stateless HTTP: the question, then the answer that
// runs the command, with the memory store and with a NATS store in one run,
// so the difference is what the shared store costs.
func BenchmarkApprovalRoundTrip(b *testing.B) {
	ns := natstest.Start(b)
	key := sharedKey(b)
	for _, store := range []string{"memory", ns.URL()} {
		name := "memory"
		if store != "memory" {
			name = "nats"
		}
		b.Run(name, func(b *testing.B) {
			cs := benchReplica(b, key, store)
			dir := b.TempDir()
			for i := 0; b.Loop(); i++ {
				a := args("path", filepath.Join(dir, fmt.Sprint(i)))
				first, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "touch", Arguments: a})
				if err != nil || !first.NeedsInput() {
					b.Fatalf("question: %v %s", err, text(first))
				}
				answers := mcp.InputResponseMap{}
				for id := range first.InputRequests {
					answers[id] = yes
				}
				res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "touch", Arguments: a, InputResponses: answers, RequestState: first.RequestState})
				if err != nil || res.IsError {
					b.Fatalf("answer: %v %s", err, text(res))
				}
			}
		})
	}
}

// benchReplica starts a stateless replica and connects a manual
// 2026-07-28 client to it.
func benchReplica(b *testing.B, key, store string) *mcp.ClientSession {
	b.Helper()
	cmd := exec.Command(fiskMCP, serveArgs("--http", "127.0.0.1:0", "--stateless",
		"--state-key-file", key, "--replay-store", store, fixtureBin)...)
	log := newLogBuffer()
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	rec := log.WaitRecords(b, "the endpoint", patience, func(recs []map[string]any) map[string]any {
		for _, r := range recs {
			if r["msg"] == "serving MCP over streamable HTTP" {
				return r
			}
		}
		return nil
	})
	url, _ := rec["url"].(string)
	cs, err := client{protocol: modernProtocol, manual: true, elicit: answer(yes, new([]string), new(sync.Mutex))}.newClient("bench").Connect(b.Context(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: http.DefaultClient, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: modernProtocol})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}
