package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// jaegerVersion is the Jaeger the trace test exports to: its all-in-one
// binary (cmd/jaeger), with in-memory storage.
const jaegerVersion = "v1.75.0"

var jaegerBinary = sync.OnceValues(func() (string, error) {
	dir, err := testsupport.InstallTool("jaeger", jaegerVersion, installJaeger)
	return filepath.Join(dir, "jaeger"), err
})

// installJaeger builds Jaeger in a throwaway module of its own, so that
// none of its dependencies touch fisk-mcp's go.mod. Cold, with an empty
// module and build cache, it takes ten minutes and more; the tool cache
// keeps the binary between runs on one machine. So a first `make test`
// does not wait for it, it builds only under CI=true or when asked (make
// jaeger); elsewhere the trace test skips, saying how to build it.
func installJaeger(dir string) error {
	if os.Getenv("CI") != "true" && os.Getenv("FISK_MCP_BUILD_JAEGER") != "1" {
		return fmt.Errorf("Jaeger %s is not built yet (ten minutes or more, once): run make jaeger, then make test again", jaegerVersion)
	}
	return goInModule("jaegerbuild", nil,
		[]string{"get", "-tool", "github.com/jaegertracing/jaeger/cmd/jaeger@" + jaegerVersion},
		[]string{"build", "-o", filepath.Join(dir, "jaeger"), "github.com/jaegertracing/jaeger/cmd/jaeger"})
}

// TestJaegerInstalls builds Jaeger into the test tool cache, or finds it
// there. CI runs it first, in the background, so that the cold build (many
// minutes) overlaps the other slow steps instead of the trace test's time.
func TestJaegerInstalls(t *testing.T) {
	bin, err := jaegerBinary()
	testsupport.RequireTool(t, "Jaeger trace backend", err)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the installed Jaeger is not there: %v", err)
	}
}

// jaeger is one Jaeger all-in-one on loopback: OTLP over HTTP in, the
// query API out.
type jaeger struct {
	otlp  string // http://127.0.0.1:PORT, for OTEL_EXPORTER_OTLP_ENDPOINT
	query string // http://127.0.0.1:PORT, the query API
}

// startJaeger starts Jaeger with memory storage on free loopback ports and
// waits until its query API answers; it stops at cleanup.
func startJaeger(t *testing.T) *jaeger {
	t.Helper()
	bin, err := jaegerBinary()
	testsupport.RequireTool(t, "Jaeger trace backend", err)
	otlp, query, grpc := freePort(t), freePort(t), freePort(t)
	config := fmt.Sprintf(`service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
extensions:
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: 127.0.0.1:%s
    grpc:
      endpoint: 127.0.0.1:%s
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 1000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%s
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`, query, grpc, otlp)
	path := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", path)
	j := &jaeger{otlp: "http://127.0.0.1:" + otlp, query: "http://127.0.0.1:" + query}
	startService(t, "Jaeger", cmd, j.query+"/api/services")
	return j
}

// jaegerSpan is a span as Jaeger's query API returns it.
type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

func (s jaegerSpan) tag(key string) string {
	for _, t := range s.Tags {
		if t.Key == key {
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

func (s jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// trace reads trace id from Jaeger once complete says it holds what the
// test waits for.
func (j *jaeger) trace(t *testing.T, id string, complete func([]jaegerSpan) bool) []jaegerSpan {
	t.Helper()
	var spans []jaegerSpan
	waitFor(t, "the trace in Jaeger", func() bool {
		resp, err := http.Get(j.query + "/api/traces/" + id)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var body struct {
			Data []struct {
				Spans []jaegerSpan `json:"spans"`
			} `json:"data"`
		}
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&body) != nil || len(body.Data) == 0 {
			return false
		}
		spans = body.Data[0].Spans
		return complete(spans)
	})
	return spans
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// TestTracesOfAGatedCallReachJaegerInTheClientsTrace exports to a real
// Jaeger: a gated call, sent with a traceparent in params._meta, is a
// server span in the client's trace, with the conventions' attributes, and
// children for the approval wait, the replay-store write, the slot and the
// run; the call's log line names the same trace and span. On 2026-07-28
// the question and the answered retry are two server spans, the second
// linked to the first.
func TestTracesOfAGatedCallReachJaegerInTheClientsTrace(t *testing.T) {
	j := startJaeger(t)
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			c := client{protocol: proto, env: []string{
				"OTEL_EXPORTER_OTLP_ENDPOINT=" + j.otlp,
				"OTEL_SERVICE_NAME=fisk-mcp-e2e",
				"OTEL_BSP_SCHEDULE_DELAY=100",
			}, elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			}}
			s := startStdio(t, c, fixtureBin)
			traceID, parentID := randomHex(t, 16), randomHex(t, 8)
			res, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{
				Name:      "touch",
				Arguments: args("path", filepath.Join(t.TempDir(), "touched")),
				Meta:      mcp.Meta{"traceparent": "00-" + traceID + "-" + parentID + "-01"},
			})
			if err != nil || res.IsError {
				t.Fatalf("the gated call failed: %v %s", err, text(res))
			}
			rec := s.log.callRecord(t, "touch")
			if rec["trace_id"] != traceID {
				t.Errorf("the call's log line has trace_id %v, want %s: %v", rec["trace_id"], traceID, rec)
			}
			requests := 1
			if proto == modernProtocol {
				requests = 2
			}
			spans := j.trace(t, traceID, func(spans []jaegerSpan) bool {
				n := 0
				for _, sp := range spans {
					if sp.OperationName == "tools/call touch" {
						n++
					}
				}
				return n == requests
			})
			checkGatedCallTrace(t, spans, proto, parentID, rec["span_id"])
		})
	}
}

// checkGatedCallTrace checks the spans of one approved call of touch.
func checkGatedCallTrace(t *testing.T, spans []jaegerSpan, proto, parentID string, loggedSpan any) {
	t.Helper()
	byName := map[string][]jaegerSpan{}
	for _, sp := range spans {
		byName[sp.OperationName] = append(byName[sp.OperationName], sp)
	}
	var req, asked jaegerSpan
	for _, sp := range byName["tools/call touch"] {
		if sp.parent() != parentID {
			t.Errorf("server span %s has parent %q, want the client's %s", sp.SpanID, sp.parent(), parentID)
		}
		if sp.tag("fisk_mcp.outcome") == "input_required" {
			asked = sp
		} else {
			req = sp
		}
	}
	if req.SpanID == "" {
		t.Fatalf("no server span of the approved call; spans: %+v", spans)
	}
	if loggedSpan != req.SpanID {
		t.Errorf("the log line's span_id %v is not the server span's %s", loggedSpan, req.SpanID)
	}
	for key, want := range map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "touch", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": proto, "network.transport": "pipe", "span.kind": "server",
		"fisk_mcp.kind": "application", "fisk_mcp.decision": "approved", "fisk_mcp.outcome": "ok",
		"fisk_mcp.application": "fixture",
	} {
		if got := req.tag(key); got != want {
			t.Errorf("server span %s = %q, want %q", key, got, want)
		}
	}
	nonce := req.tag("fisk_mcp.approval")
	if nonce == "" || req.tag("fisk_mcp.gate.trigger") == "" {
		t.Errorf("server span lacks the approval nonce or the gate trigger: %+v", req.Tags)
	}
	if proto == modernProtocol {
		if asked.SpanID == "" || asked.tag("fisk_mcp.approval") != nonce {
			t.Fatalf("no server span of the question with nonce %s; spans: %+v", nonce, spans)
		}
		linked := false
		for _, r := range req.References {
			linked = linked || (r.RefType == "FOLLOWS_FROM" && r.SpanID == asked.SpanID)
		}
		if !linked {
			t.Errorf("the answered request's span does not link to the question's %s: %+v", asked.SpanID, req.References)
		}
	}
	child := func(name string, parent jaegerSpan) jaegerSpan {
		t.Helper()
		for _, sp := range byName[name] {
			if sp.parent() == parent.SpanID && (name != "approval wait" || sp.tag("fisk_mcp.decision") == "approved") {
				return sp
			}
		}
		t.Fatalf("no span %q under %q; spans: %+v", name, parent.OperationName, spans)
		return jaegerSpan{}
	}
	approval := child("approval wait", req)
	child("replay store write", approval)
	child("slot wait", req)
	run := child("command run", req)
	if got := run.tag("process.exit.code"); got != "0" {
		t.Errorf("command run exit code = %q", got)
	}
	if run.tag("fisk_mcp.output.bytes") == "" || run.tag("fisk_mcp.command_line") != "" {
		t.Errorf("command run tags: %+v (bytes wanted, no command line unless asked)", run.Tags)
	}
	for _, sp := range spans {
		for _, tag := range sp.Tags {
			if strings.Contains(fmt.Sprint(tag.Value), "touched") {
				t.Errorf("span %s carries an argument: %s=%v", sp.OperationName, tag.Key, tag.Value)
			}
		}
	}
}
