package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/telemetry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallTelemetry measures a trivial command's call (the fixture's
// echo), and an in-process tool's, with telemetry off and on, in the same
// run: on is every span and
// metric, exported over OTLP/HTTP to a local collector that accepts and
// drops, with the Prometheus handler built. The goal is under 2 % more.
func BenchmarkCallTelemetry(b *testing.B) {
	var received atomic.Int64
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	b.Cleanup(collector.Close)
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	on, err := telemetry.New(b.Context(), telemetry.Options{Prometheus: true})
	if err != nil || on == nil {
		b.Fatalf("telemetry.New: %v, %v", on, err)
	}
	b.Cleanup(func() {
		on.Shutdown(context.Background())
		if received.Load() == 0 {
			b.Error("the collector received nothing: telemetry was not on")
		}
	})
	// The command's call, and an in-process tool's, which has no process
	// start to hide the server's own cost in.
	for _, tool := range []struct {
		name string
		set  *exposure.ToolSet
		args map[string]any
	}{
		{"echo", fixtureSet(b, exposure.Policy{}), map[string]any{"context": "bench", "subject": "hello"}},
		{"echo_json", customSet(b, echoTool(b)), map[string]any{"word": "hi"}},
	} {
		for _, tc := range []struct {
			name string
			tel  *telemetry.Telemetry
		}{{"off", nil}, {"on", on}} {
			b.Run(tool.name+"/"+tc.name, func(b *testing.B) {
				s, _ := newServer(b, Config{Telemetry: tc.tel}, tool.set)
				cs := connect(b, s, legacyVersion, nil)
				b.ReportAllocs()
				for b.Loop() {
					if res := call(b, cs, tool.name, tool.args); res.IsError {
						b.Fatal(text(res))
					}
				}
			})
		}
		// On a shared machine the load moves between one sub-benchmark and
		// the next by more than telemetry costs: this one calls both
		// servers in turn, each iteration, and reports each one's mean
		// and their ratio.
		b.Run(tool.name+"/interleaved", func(b *testing.B) {
			off, _ := newServer(b, Config{}, tool.set)
			onS, _ := newServer(b, Config{Telemetry: on}, tool.set)
			sessions := [2]*mcp.ClientSession{connect(b, off, legacyVersion, nil), connect(b, onS, legacyVersion, nil)}
			var spent [2]time.Duration
			for i := 0; b.Loop(); i++ {
				for k := range 2 {
					k := (k + i) % 2 // alternate which goes first
					start := time.Now()
					if res := call(b, sessions[k], tool.name, tool.args); res.IsError {
						b.Fatal(text(res))
					}
					spent[k] += time.Since(start)
				}
			}
			b.ReportMetric(float64(spent[0].Nanoseconds())/float64(b.N), "off-ns/call")
			b.ReportMetric(float64(spent[1].Nanoseconds())/float64(b.N), "on-ns/call")
			b.ReportMetric(float64(spent[1])/float64(spent[0]), "on/off")
		})
	}
}
