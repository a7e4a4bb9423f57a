package telemetry

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestNewIsOffUnlessSomethingAsksForIt(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		on   bool
	}{
		{"nothing", nil, false},
		{"service name only", map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
		{"exporters none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}, false},
		{"sdk disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, true},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, true},
		{"otlp exporter", map[string]string{"OTEL_METRICS_EXPORTER": "otlp"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tel, err := New(t.Context(), Options{Getenv: envOf(tc.env)})
			if err != nil {
				t.Fatal(err)
			}
			if (tel != nil) != tc.on {
				t.Fatalf("on = %v, want %v", tel != nil, tc.on)
			}
			tel.Shutdown(t.Context())
		})
	}
}

func TestNewRefusesWhatItCannotExport(t *testing.T) {
	for _, env := range []map[string]string{
		{"OTEL_TRACES_EXPORTER": "zipkin"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
	} {
		if _, err := New(t.Context(), Options{Getenv: envOf(env)}); err == nil {
			t.Errorf("%v: no error", env)
		}
	}
}

// Off costs nothing: every method of a nil Telemetry returns at once.
func TestOffAllocatesNothing(t *testing.T) {
	var tel *Telemetry
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		ctx, span := tel.StartRequest(ctx, Request{Method: "tools/call", Tool: "x"})
		_, child := Start(ctx, "command run")
		tel.Call("x", "ok", 10, false)
		tel.Operation(ctx, Request{}, 0, "")
		tel.ApprovalPending(ctx)()
		tel.CommandStarted(ctx)()
		Fail(child, "x")
		EndRequest(span, "tool_error")
	})
	if allocs != 0 {
		t.Fatalf("off allocates %v per call", allocs)
	}
}

func scrapeText(t *testing.T, tel *Telemetry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	tel.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// A tool label is a served name or _OTHER, and a tool a reload removed is
// no longer reported.
func TestToolSeriesFollowTheServedSet(t *testing.T) {
	tel, err := New(t.Context(), Options{Prometheus: true, Getenv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	tel.SetTools([]Tool{{"old_tool", "application"}, {"kept", "application"}}, 2, 2)
	tel.Call("old_tool", "ok", 5, false)
	tel.Call("kept", "exit", 0, true)
	tel.Call("not served", "unknown_tool", 0, false)
	if got := tel.ToolLabel("not served"); got != Other {
		t.Errorf("ToolLabel of an unserved name = %q", got)
	}
	out := scrapeText(t, tel)
	for _, want := range []string{
		`fisk_mcp_tool_calls_total{fisk_mcp_kind="application",fisk_mcp_outcome="ok",gen_ai_tool_name="old_tool"} 1`,
		`fisk_mcp_tool_calls_total{fisk_mcp_kind="_OTHER",fisk_mcp_outcome="unknown_tool",gen_ai_tool_name="_OTHER"} 1`,
		`fisk_mcp_tool_truncations_total{gen_ai_tool_name="kept"} 1`,
		`fisk_mcp_tools_served 2`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("scrape lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not served") {
		t.Errorf("a name the set does not serve is a label:\n%s", out)
	}
	tel.SetTools([]Tool{{"kept", "application"}}, 1, 1)
	out = scrapeText(t, tel)
	if strings.Contains(out, "old_tool") {
		t.Errorf("a removed tool is still reported:\n%s", out)
	}
	if !strings.Contains(out, `fisk_mcp_tool_calls_total{fisk_mcp_kind="application",fisk_mcp_outcome="exit",gen_ai_tool_name="kept"} 1`) {
		t.Errorf("a kept tool lost its count:\n%s", out)
	}
}
