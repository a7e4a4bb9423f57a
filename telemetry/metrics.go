package telemetry

import (
	"context"
	"errors"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Attribute names: the conventions' where they have one, fisk_mcp.'s
// otherwise.
const (
	attrMethod          = "mcp.method.name"
	attrProtocolVersion = "mcp.protocol.version"
	attrSessionID       = "mcp.session.id"
	attrTransport       = "network.transport"
	attrToolName        = "gen_ai.tool.name"
	attrOperation       = "gen_ai.operation.name"
	attrErrorType       = "error.type"
	attrKind            = "fisk_mcp.kind"
	attrOutcome         = "fisk_mcp.outcome"
	attrDecision        = "fisk_mcp.decision"
	attrRoute           = "fisk_mcp.route"
	attrReason          = "fisk_mcp.reason"
)

// Methods are the MCP methods that label metrics by name; any other is
// [Other].
var Methods = []string{
	"initialize", "ping", "tools/list", "tools/call",
	"notifications/initialized", "notifications/cancelled", "notifications/progress",
	"notifications/roots/list_changed", "prompts/list", "prompts/get",
	"resources/list", "resources/read", "resources/templates/list",
	"resources/subscribe", "resources/unsubscribe", "completion/complete",
	"logging/setLevel", "server/discover",
}

// durationBuckets are the conventions' advice for the MCP duration
// histograms, in seconds; they serve the approval and slot waits as well.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

type instruments struct {
	operation, session                          metric.Float64Histogram
	calls, outputBytes, truncations             metric.Int64ObservableCounter
	toolsServed, toolsListed                    metric.Int64ObservableGauge
	approvals, slotWaits, replayErrors, refused metric.Int64Counter
	approvalWait, slotWait                      metric.Float64Histogram
	pending, running                            metric.Int64UpDownCounter
	load                                        [2]metric.Float64Histogram // start, reload
	loadFailures                                [2]metric.Int64Counter
}

func newInstruments(m metric.Meter, tools *toolTable) (*instruments, error) {
	var in instruments
	var errs []error
	hist := func(name, desc string) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(durationBuckets...))
		errs = append(errs, err)
		return h
	}
	count := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	upDown := func(name, unit, desc string) metric.Int64UpDownCounter {
		c, err := m.Int64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	observed := func(name, unit, desc string) metric.Int64ObservableCounter {
		c, err := m.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	gauge := func(name, desc string) metric.Int64ObservableGauge {
		g, err := m.Int64ObservableGauge(name, metric.WithUnit("{tool}"), metric.WithDescription(desc))
		errs = append(errs, err)
		return g
	}
	in.operation = hist("mcp.server.operation.duration", "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.")
	in.session = hist("mcp.server.session.duration", "The duration of the MCP session as observed on the MCP server.")
	in.calls = observed("fisk_mcp.tool.calls", "{call}", "Tool calls, by tool, kind and outcome.")
	in.outputBytes = observed("fisk_mcp.tool.output", "By", "Output commands wrote, stdout and stderr, by tool.")
	in.truncations = observed("fisk_mcp.tool.truncations", "{call}", "Calls whose output was more than the capture kept, by tool.")
	in.toolsServed = gauge("fisk_mcp.tools.served", "Tools of the set in force.")
	in.toolsListed = gauge("fisk_mcp.tools.listed", "Tools tools/list shows (fewer than served when the list is deferred).")
	in.approvals = count("fisk_mcp.approvals", "{approval}", "Approvals asked and answered, by the gate's decision and the route (elicitation, browser).")
	in.approvalWait = hist("fisk_mcp.approval.duration", "How long the gate took to decide, by decision and route: mostly a person thinking.")
	in.pending = upDown("fisk_mcp.approvals.pending", "{approval}", "Approvals waiting for the gate's decision, mostly a person's.")
	in.slotWaits = count("fisk_mcp.slot.waits", "{call}", "Calls that had to wait for a free concurrency slot.")
	in.slotWait = hist("fisk_mcp.slot.wait.duration", "How long calls waited for a free concurrency slot.")
	in.running = upDown("fisk_mcp.commands.running", "{command}", "Commands running now.")
	in.load[0] = hist("fisk_mcp.introspection.duration", "How long the start-up load of every app took (introspection and the tool set).")
	in.load[1] = hist("fisk_mcp.reload.duration", "How long a reload took.")
	in.loadFailures[0] = count("fisk_mcp.introspection.failures", "{load}", "Start-up loads that failed.")
	in.loadFailures[1] = count("fisk_mcp.reload.failures", "{reload}", "Reloads that failed; the set in force stays.")
	in.replayErrors = count("fisk_mcp.replay_store.errors", "{error}", "Answers refused because the record of used approvals could not record them.")
	in.refused = count("fisk_mcp.auth.refusals", "{request}", "HTTP requests refused for their credential, by reason (missing, invalid, rate_limited, forbidden).")
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if _, err := m.RegisterCallback(tools.observe(&in), in.calls, in.outputBytes, in.truncations, in.toolsServed, in.toolsListed); err != nil {
		return nil, err
	}
	return &in, nil
}

// Operation records one MCP request's duration, with its method,
// protocol version and transport, and error.type when it failed (a
// JSON-RPC error code, or tool_error for an isError result).
func (t *Telemetry) Operation(ctx context.Context, r Request, took time.Duration, errorType string) {
	if t == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs, attribute.String(attrMethod, label(r.Method, Methods)),
		attribute.String(attrProtocolVersion, label(r.ProtocolVersion, ProtocolVersions)),
		attribute.String(attrTransport, r.Transport))
	if r.Method == "tools/call" {
		attrs = append(attrs, attribute.String(attrOperation, "execute_tool"))
	}
	if errorType != "" {
		attrs = append(attrs, attribute.String(attrErrorType, errorType))
	}
	t.metrics.operation.Record(ctx, took.Seconds(), metric.WithAttributes(attrs...))
}

// SessionEnded records a session's duration.
func (t *Telemetry) SessionEnded(protocolVersion, transport string, took time.Duration) {
	if t == nil {
		return
	}
	t.metrics.session.Record(context.Background(), took.Seconds(), metric.WithAttributes(
		attribute.String(attrProtocolVersion, label(protocolVersion, ProtocolVersions)),
		attribute.String(attrTransport, transport)))
}

// ProtocolVersions are the MCP versions that label metrics; any other is
// [Other].
var ProtocolVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// label is v when vocabulary holds it, else [Other].
func label(v string, vocabulary []string) string {
	if slices.Contains(vocabulary, v) {
		return v
	}
	return Other
}

// ApprovalPending counts an approval waiting for the gate's decision,
// mostly a person's, until the returned function is called.
func (t *Telemetry) ApprovalPending(ctx context.Context) (done func()) {
	if t == nil {
		return func() {}
	}
	t.metrics.pending.Add(ctx, 1)
	return func() { t.metrics.pending.Add(ctx, -1) }
}

// Approval counts the gate's decision on route (elicitation, browser) and
// records how long it took; decision "unavailable" is also a replay-store
// error.
func (t *Telemetry) Approval(ctx context.Context, decision, route string, took time.Duration) {
	if t == nil {
		return
	}
	attrs := metric.WithAttributes(attribute.String(attrDecision, decision), attribute.String(attrRoute, route))
	t.metrics.approvals.Add(ctx, 1, attrs)
	t.metrics.approvalWait.Record(ctx, took.Seconds(), attrs)
}

// ReplayStoreError counts an answer the record of used approvals could
// not record.
func (t *Telemetry) ReplayStoreError(ctx context.Context) {
	if t == nil {
		return
	}
	t.metrics.replayErrors.Add(ctx, 1)
}

// SlotWait records a call's wait for a concurrency slot; a wait of zero
// (a slot was free) is not counted as a wait.
func (t *Telemetry) SlotWait(ctx context.Context, took time.Duration, waited bool) {
	if t == nil {
		return
	}
	if waited {
		t.metrics.slotWaits.Add(ctx, 1)
	}
	t.metrics.slotWait.Record(ctx, took.Seconds())
}

// CommandStarted counts a running command until the returned function is
// called.
func (t *Telemetry) CommandStarted(ctx context.Context) (ended func()) {
	if t == nil {
		return func() {}
	}
	t.metrics.running.Add(ctx, 1)
	return func() { t.metrics.running.Add(ctx, -1) }
}

// Loaded records the start-up load of the apps (reload false) or a
// reload, and counts it as failed when err is not nil.
func (t *Telemetry) Loaded(took time.Duration, reload bool, err error) {
	if t == nil {
		return
	}
	i := 0
	if reload {
		i = 1
	}
	outcome := "ok"
	if err != nil {
		outcome = "error"
		t.metrics.loadFailures[i].Add(context.Background(), 1)
	}
	t.metrics.load[i].Record(context.Background(), took.Seconds(), metric.WithAttributes(attribute.String(attrOutcome, outcome)))
}

// Refusal reasons of [Telemetry.AuthRefused].
const (
	RefusedMissing     = "missing"
	RefusedInvalid     = "invalid"
	RefusedRateLimited = "rate_limited"
	RefusedForbidden   = "forbidden"
)

// AuthRefused counts an HTTP request refused for its credential, by
// reason (one of the Refused* constants; never the credential).
func (t *Telemetry) AuthRefused(ctx context.Context, reason string) {
	if t == nil {
		return
	}
	t.metrics.refused.Add(ctx, 1, metric.WithAttributes(attribute.String(attrReason, reason)))
}
