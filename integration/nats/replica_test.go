package nats

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// replica is one fisk-mcp serving nats over streamable HTTP.
type replica struct {
	url     string
	log     *testsupport.LogBuffer
	started time.Time // when the process was started, before it introspected nats
	ready   time.Time // when it announced its endpoint, after it introspected nats
}

// startReplica starts `fisk-mcp serve --http 127.0.0.1:0 ARGS... nats` in
// the sandbox with JSON logs and waits for the endpoint it announces. At
// cleanup it sends SIGTERM and waits for the exit.
func startReplica(t *testing.T, sb sandbox, args ...string) *replica {
	t.Helper()
	fiskMCP, nats := requireBinaries(t)
	serve := append(append([]string{"serve", "--log-format", "json", "--http", "127.0.0.1:0"}, args...), nats)
	cmd := exec.Command(fiskMCP, serve...)
	cmd.Env = sb.env()
	log := &testsupport.LogBuffer{}
	cmd.Stderr = log
	r := &replica{log: log, started: time.Now()}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			t.Errorf("fisk-mcp did not exit cleanly on SIGTERM: %v\n%s", err, log.String())
		}
	})
	rec := log.WaitRecords(t, "announcing the endpoint", time.Minute, func(recs []map[string]any) map[string]any {
		for _, r := range recs {
			if r["msg"] == "serving MCP over streamable HTTP" || r["level"] == "ERROR" {
				return r
			}
		}
		return nil
	})
	r.ready = time.Now()
	r.url, _ = rec["url"].(string)
	if !strings.HasPrefix(r.url, "http://127.0.0.1:") {
		t.Fatalf("fisk-mcp announced no endpoint: %v\n%s", rec, log.String())
	}
	return r
}

// connect opens a 2026-07-28 session that answers nothing by itself: the
// test carries each answer, from one replica to another.
func (r *replica) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "fisk-mcp-nats-replica-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server elicited directly on 2026-07-28")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		Capabilities:   &mcp.ClientCapabilities{},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: r.url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: testsupport.ModernProtocol})
	if err != nil {
		t.Fatalf("connecting to %s: %v\n%s", r.url, err, r.log.String())
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// finalCalls counts the call lines of tool that are not a question.
func (r *replica) finalCalls(tool string) int {
	n := 0
	for _, rec := range r.log.Records("tool call") {
		if rec["tool"] == tool && rec["result"] != "input_required" {
			n++
		}
	}
	return n
}

// waitFinal waits for the call line of tool that is not a question: it
// may be written just after the response.
func (r *replica) waitFinal(t *testing.T, tool string) map[string]any {
	t.Helper()
	return r.log.WaitRecords(t, "for the call line of "+tool, time.Minute, func(recs []map[string]any) map[string]any {
		for _, rec := range recs {
			if rec["msg"] == "tool call" && rec["tool"] == tool && rec["result"] != "input_required" {
				return rec
			}
		}
		return nil
	})
}

// listedJSON is every page of tools/list, as JSON.
func listedJSON(t *testing.T, cs *mcp.ClientSession) []byte {
	t.Helper()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		tools = append(tools, tool)
	}
	data, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func introspectNATS(t *testing.T, sb sandbox) []byte {
	t.Helper()
	_, nats := requireBinaries(t)
	cmd := exec.Command(nats, "--fisk-introspect")
	cmd.Env = sb.env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nats --fisk-introspect: %v", err)
	}
	return out
}

// The nats CLI writes the time it started into the help of its consumer
// pause flags, so two replicas started a second apart are handed different
// text for the same binary. They must still list byte-identical tools and
// accept each other's approvals.
func TestNATSReplicasStartedASecondApartListTheSameToolsAndAcceptEachOthersApprovals(t *testing.T) {
	sb := newSandbox(t)
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "state.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(key)), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := append([]string{"--stateless", "--state-key-file", keyFile}, natsFullList...)

	before := introspectNATS(t, sb)
	a := startReplica(t, sb, flags...)
	// The condition under test, not a synchronisation: B introspects nats
	// at least a second after A finished introspecting it, so the
	// seconds-resolution time in nats's help differs between them.
	time.Sleep(time.Until(a.ready.Add(time.Second)))
	b := startReplica(t, sb, flags...)
	if b.started.Sub(a.ready) < time.Second {
		t.Fatalf("replica B started %s after A was ready, want at least a second", b.started.Sub(a.ready))
	}
	if after := introspectNATS(t, sb); bytes.Equal(before, after) {
		t.Fatal("nats --fisk-introspect gave the same document a second apart: its help no longer embeds the time, so this test proves nothing; find what varies now")
	}

	ca, cb := a.connect(t), b.connect(t)
	if la, lb := listedJSON(t, ca), listedJSON(t, cb); !bytes.Equal(la, lb) {
		t.Errorf("the replicas list different tools (%d and %d bytes)", len(la), len(lb))
	}

	// auth operator add (impact:rw, so gated) runs without a NATS server
	// and leaves an nsc store behind when it runs.
	store := filepath.Join(sb.data, "nats", "nsc", "stores", "crossed")
	crossApproval(t, a, b, ca, cb, "auth_operator_add", map[string]any{"name": "crossed"}, "ok")
	if _, err := os.Stat(store); err != nil {
		t.Errorf("B accepted the approval but the command left no store: %v", err)
	}
	// consumer pause (impact:rw) is one of the tools whose schema carries
	// the time nats started. With no server to reach it fails, after the
	// gate: an exit status, not a refusal, says B ran it.
	crossApproval(t, a, b, ca, cb, "consumer_pause", map[string]any{
		"stream": "ORDERS", "consumer": "NEW", "until": "1h", "server": "nats://127.0.0.1:1",
	}, "exit")
}

// crossApproval asks for tool on replica a and answers on b, which must
// accept a's approval and run the command once, logging result.
func crossApproval(t *testing.T, a, b *replica, ca, cb *mcp.ClientSession, tool string, args map[string]any, result string) {
	t.Helper()
	first, err := ca.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("replica A did not ask for %s: %v %s", tool, err, resultText(first))
	}
	var id string
	for k := range first.InputRequests {
		id = k
	}
	yes := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
	res, err := cb.CallTool(t.Context(), &mcp.CallToolParams{
		Name: tool, Arguments: args, InputResponses: mcp.InputResponseMap{id: yes}, RequestState: first.RequestState,
	})
	if err != nil || res.NeedsInput() {
		t.Fatalf("replica B did not take replica A's approval of %s: %v %s", tool, err, resultText(res))
	}
	rec := b.waitFinal(t, tool)
	if n, m := a.finalCalls(tool), b.finalCalls(tool); n != 0 || m != 1 {
		t.Fatalf("%s ran %d times on A and %d on B, want only once, on B: %s\n%s", tool, n, m, resultText(res), b.log.String())
	}
	if got := rec["result"]; got != result {
		t.Errorf("B's call of %s ended %q, want %q (a refusal means A's approval was not accepted):\n%s", tool, got, result, resultText(res))
	}
}
