package telemetry

import (
	"context"
	"net/http"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

const (
	metaTrace   = "0af7651916cd43dd8448eb211c80319c"
	headerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
)

// tracing returns telemetry whose traces go to a collector that is never
// reached (nothing here ends a span's batch).
func tracing(t *testing.T) *Telemetry {
	t.Helper()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	tel, err := New(t.Context(), Options{})
	if err != nil || !tel.Tracing() {
		t.Fatalf("New: %v, tracing %v", err, tel.Tracing())
	}
	t.Cleanup(func() { tel.Shutdown(context.Background()) })
	return tel
}

// The parent is params._meta's traceparent, failing that the HTTP header's.
func TestStartRequestTakesTheParentFromMetaThenTheHeader(t *testing.T) {
	tel := tracing(t)
	header := http.Header{"Traceparent": {"00-" + headerTrace + "-00f067aa0ba902b7-01"}}
	meta := map[string]any{"traceparent": "00-" + metaTrace + "-b7ad6b7169203331-01"}
	cases := []struct {
		name   string
		meta   map[string]any
		header http.Header
		want   string
	}{
		{"meta", meta, header, metaTrace},
		{"header", map[string]any{"progressToken": 1}, header, headerTrace},
		{"neither", nil, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, span := tel.StartRequest(t.Context(), Request{Method: "tools/call", Tool: "x", Meta: tc.meta, Header: tc.header})
			defer span.End()
			got := span.SpanContext().TraceID().String()
			if tc.want != "" && got != tc.want {
				t.Errorf("trace %s, want the client's %s", got, tc.want)
			}
			if tc.want == "" && (got == metaTrace || got == headerTrace) {
				t.Errorf("a span without a client trace joined %s", got)
			}
		})
	}
}

// Unless the operator chose a parent-based sampler, a client's
// traceparent does not decide sampling.
func TestTheSamplerIsTheOperatorsNotTheClients(t *testing.T) {
	unsampled := map[string]any{"traceparent": "00-" + metaTrace + "-b7ad6b7169203331-00"}
	for _, tc := range []struct {
		sampler   string
		recording bool
	}{{"", true}, {"parentbased_always_on", false}} {
		t.Run("sampler="+tc.sampler, func(t *testing.T) {
			if tc.sampler != "" {
				t.Setenv("OTEL_TRACES_SAMPLER", tc.sampler)
			}
			tel := tracing(t)
			_, span := tel.StartRequest(t.Context(), Request{Method: "ping", Meta: unsampled})
			defer span.End()
			if span.IsRecording() != tc.recording {
				t.Errorf("recording = %v, want %v", span.IsRecording(), tc.recording)
			}
		})
	}
}

// A request that answers an approval another request asked links to it.
func TestAnsweredLinksToTheRequestThatAsked(t *testing.T) {
	tel := tracing(t)
	_, asked := tel.StartRequest(t.Context(), Request{Method: "tools/call", Tool: "x"})
	tel.Asked(asked, "nonce-1")
	asked.End()
	_, answered := tel.StartRequest(t.Context(), Request{Method: "tools/call", Tool: "x"})
	tel.Answered(answered, "nonce-1")
	links := answered.(sdktrace.ReadOnlySpan).Links()
	answered.End()
	if len(links) != 1 || links[0].SpanContext.SpanID() != asked.SpanContext().SpanID() {
		t.Fatalf("links = %+v, want the asking span %s", links, asked.SpanContext().SpanID())
	}
}
