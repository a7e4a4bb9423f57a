// Package telemetry records what fisk-mcp does as OpenTelemetry spans and
// metrics, named by the OpenTelemetry semantic conventions for MCP where
// they name it (mcp.method.name, gen_ai.tool.name,
// mcp.server.operation.duration, ...) and under fisk_mcp. where they do
// not. Metrics are read through a Prometheus handler ([Telemetry.Metrics])
// and, like traces, exported over OTLP when the standard OTEL_* variables
// ask for it.
//
// Off is the zero cost case: [New] returns nil when nothing asks for
// telemetry, and every method of a nil *Telemetry returns at once,
// allocating nothing, so callers need no test of their own.
//
// Labels are bounded by construction: a tool label is a name of the set in
// force (any other is [Other]) and every other label comes from a fixed
// vocabulary the caller owns (a result code, a gate decision). Per-tool
// series are on counters only, never on histograms, and a tool a reload
// removed stops being reported. Arguments, output, paths and other
// caller-chosen strings are never attributes; the package takes no text it
// would have to redact.
//
// The package deliberately does not decide what a call, a decision or an
// outcome is: it records the values the server hands it.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of fisk-mcp's spans and metrics.
const ScopeName = "github.com/fisk-mcp/fisk-mcp"

// Other is the label of a value outside its vocabulary: a tool name the
// set in force does not serve, a method fisk-mcp does not know.
const Other = "_OTHER"

// Options says what to turn on besides what the environment asks for.
type Options struct {
	// Prometheus builds the handler of GET /metrics ([Telemetry.Metrics]).
	Prometheus bool
	// ServiceVersion is the service.version resource attribute.
	ServiceVersion string
	// CommandLine puts the redacted command line of each call on its run
	// span (fisk_mcp.command_line); off by default, since even redacted a
	// command line may say more than an operator's trace backend should
	// hold.
	CommandLine bool
	// Getenv reads the environment to decide what is on; nil is
	// os.Getenv. The exporters read their own settings from the process
	// environment.
	Getenv func(string) string
	// Logger receives the exporters' failures (a collector that cannot be
	// reached), at Warn; nil is slog.Default().
	Logger *slog.Logger
}

// Telemetry is fisk-mcp's spans and metrics. A nil *Telemetry is off.
type Telemetry struct {
	tracer      trace.Tracer // nil when traces are off
	commandLine bool
	metrics     *instruments
	tools       *toolTable
	prom        http.Handler // nil without Options.Prometheus
	shutdown    []func(context.Context) error
	links       approvalLinks
}

// New returns the telemetry opts and the environment ask for, or nil when
// they ask for none. Traces are exported over OTLP/HTTP when
// OTEL_TRACES_EXPORTER is otlp, or unset with an OTLP endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set;
// metrics likewise with OTEL_METRICS_EXPORTER and the metrics endpoint.
// OTEL_SDK_DISABLED=true turns both off; the exporters read the other
// OTEL_EXPORTER_OTLP_* settings (headers, timeout, TLS) themselves.
//
// The sampler is the operator's: OTEL_TRACES_SAMPLER as the SDK reads it,
// and always_on when it is unset, so that a client's traceparent cannot
// turn sampling off, or on, unless the operator chose a parent-based
// sampler.
func New(ctx context.Context, opts Options) (*Telemetry, error) {
	env := opts.Getenv
	if env == nil {
		env = os.Getenv
	}
	otlp := func(signal string) (bool, error) {
		if strings.EqualFold(env("OTEL_SDK_DISABLED"), "true") {
			return false, nil
		}
		switch e := strings.ToLower(strings.TrimSpace(env("OTEL_" + signal + "_EXPORTER"))); e {
		case "none":
			return false, nil
		case "otlp":
		case "":
			if env("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && env("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") == "" {
				return false, nil
			}
		default:
			return false, fmt.Errorf("OTEL_%s_EXPORTER=%s: fisk-mcp exports over OTLP only; set it to otlp or none", signal, e)
		}
		for _, k := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"} {
			if p := env(k); p != "" && p != "http/protobuf" {
				return false, fmt.Errorf("%s=%s: fisk-mcp exports OTLP over HTTP only; set it to http/protobuf and point the endpoint at the collector's HTTP port (4318)", k, p)
			}
		}
		return true, nil
	}
	traces, err := otlp("TRACES")
	if err != nil {
		return nil, err
	}
	metrics, err := otlp("METRICS")
	if err != nil {
		return nil, err
	}
	if !traces && !metrics && !opts.Prometheus {
		return nil, nil
	}
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.version", opts.ServiceVersion)))
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	if env("OTEL_SERVICE_NAME") == "" && !strings.Contains(env("OTEL_RESOURCE_ATTRIBUTES"), "service.name=") {
		res, _ = resource.Merge(res, resource.NewSchemaless(attribute.String("service.name", "fisk-mcp")))
	}
	t := &Telemetry{commandLine: opts.CommandLine}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	// The SDK's own reports go to the process's log, never to stdout.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("telemetry: exporting failed", "err", err)
	}))
	if traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("the OTLP trace exporter: %w", err)
		}
		tpOpts := []sdktrace.TracerProviderOption{sdktrace.WithBatcher(exp), sdktrace.WithResource(res)}
		if env("OTEL_TRACES_SAMPLER") == "" {
			tpOpts = append(tpOpts, sdktrace.WithSampler(sdktrace.AlwaysSample()))
		}
		tp := sdktrace.NewTracerProvider(tpOpts...)
		t.tracer = tp.Tracer(ScopeName)
		t.shutdown = append(t.shutdown, tp.Shutdown)
	}
	mpOpts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if opts.Prometheus {
		reg := prometheus.NewRegistry()
		exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
		if err != nil {
			return nil, fmt.Errorf("the Prometheus exporter: %w", err)
		}
		mpOpts = append(mpOpts, sdkmetric.WithReader(exp))
		t.prom = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	}
	if metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("the OTLP metric exporter: %w", err)
		}
		mpOpts = append(mpOpts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	mp := sdkmetric.NewMeterProvider(mpOpts...)
	t.shutdown = append(t.shutdown, mp.Shutdown)
	t.tools = newToolTable()
	if t.metrics, err = newInstruments(mp.Meter(ScopeName), t.tools); err != nil {
		return nil, fmt.Errorf("telemetry instruments: %w", err)
	}
	return t, nil
}

// Metrics is the handler of GET /metrics, in the Prometheus text format;
// nil unless Options.Prometheus.
func (t *Telemetry) Metrics() http.Handler {
	if t == nil {
		return nil
	}
	return t.prom
}

// CommandLine reports whether run spans carry the redacted command line
// (Options.CommandLine).
func (t *Telemetry) CommandLine() bool { return t != nil && t.commandLine }

// Tracing reports whether spans are recorded.
func (t *Telemetry) Tracing() bool { return t != nil && t.tracer != nil }

// Shutdown flushes what is buffered to the exporters and stops them.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}
