package telemetry

import (
	"context"
	"net/http"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Request is one MCP request as its server span and the operation metric
// describe it. Every field is the server's own or bounded by a
// vocabulary; Meta and Header are read for the trace context only.
type Request struct {
	Method          string
	Tool            string // for tools/call: a served name, or Other
	ProtocolVersion string
	SessionID       string
	Transport       string // "pipe" (stdio) or "tcp" (HTTP)
	// Meta is the request's params._meta and Header its HTTP request's
	// header (nil over stdio): the parent is taken from Meta's
	// traceparent and tracestate, failing that from Header's.
	Meta   map[string]any
	Header http.Header
}

var traceContext = propagation.TraceContext{}

// StartRequest starts the server span of r, named as the conventions say
// ("tools/call nats_stream_ls"), as a child of the trace context the
// client sent. Off, it returns ctx and the span already in it (a no-op),
// allocating nothing.
func (t *Telemetry) StartRequest(ctx context.Context, r Request) (context.Context, trace.Span) {
	if !t.Tracing() {
		return ctx, trace.SpanFromContext(ctx)
	}
	if _, ok := r.Meta["traceparent"].(string); ok {
		ctx = traceContext.Extract(ctx, metaCarrier(r.Meta))
	} else if r.Header != nil {
		ctx = traceContext.Extract(ctx, propagation.HeaderCarrier(r.Header))
	}
	method := label(r.Method, Methods)
	name := method
	attrs := []attribute.KeyValue{
		attribute.String(attrMethod, method),
		attribute.String(attrTransport, r.Transport),
		attribute.String(attrProtocolVersion, label(r.ProtocolVersion, ProtocolVersions)),
	}
	if r.Method == "tools/call" {
		name += " " + r.Tool
		attrs = append(attrs, attribute.String(attrToolName, r.Tool), attribute.String(attrOperation, "execute_tool"))
	}
	if r.SessionID != "" {
		attrs = append(attrs, attribute.String(attrSessionID, r.SessionID))
	}
	return t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
}

// ToolLabel is name when the set in force serves it, else [Other]: what a
// span name and a tool label may say of a name a client chose.
func (t *Telemetry) ToolLabel(name string) string {
	if t == nil {
		return Other
	}
	t.tools.mu.Lock()
	_, ok := t.tools.byName[name]
	t.tools.mu.Unlock()
	if !ok {
		return Other
	}
	return name
}

// EndRequest ends a server span: errorType, when set, is its error.type
// and makes its status an error. Off, it does nothing.
func EndRequest(span trace.Span, errorType string) {
	if !span.IsRecording() {
		return
	}
	if errorType != "" {
		span.SetAttributes(attribute.String(attrErrorType, errorType))
		span.SetStatus(codes.Error, errorType)
	}
	span.End()
}

// Start starts a child of the span in ctx, from the same tracer provider,
// for a step that takes time inside a request (the approval wait, the
// slot, the run, a replay-store write). Without a recording span in ctx
// it returns ctx and that span, allocating nothing, so packages below the
// server need no *Telemetry to use it.
func Start(ctx context.Context, name string) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer(ScopeName).Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal))
}

// Fail marks span as failed with errorType, a value of a fixed vocabulary.
func Fail(span trace.Span, errorType string) {
	if !span.IsRecording() || errorType == "" {
		return
	}
	span.SetAttributes(attribute.String(attrErrorType, errorType))
	span.SetStatus(codes.Error, errorType)
}

// metaCarrier reads and writes W3C trace context in params._meta.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	v, _ := m[key].(string)
	return v
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// Inject writes the trace context of ctx into meta (a request's
// params._meta), as a client does.
func Inject(ctx context.Context, meta map[string]any) {
	traceContext.Inject(ctx, metaCarrier(meta))
}

// approvalLinks remembers, by approval nonce, the span of the request that
// asked, so that the request answering it (on 2026-07-28 another request)
// links to it. Bounded: the oldest entries go first.
type approvalLinks struct {
	mu    sync.Mutex
	spans map[string]trace.SpanContext
	order []string
}

const maxApprovalLinks = 1024

// Asked records that the request of span asked the approval nonce.
func (t *Telemetry) Asked(span trace.Span, nonce string) {
	if !span.IsRecording() || nonce == "" {
		return
	}
	l := &t.links
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spans == nil {
		l.spans = map[string]trace.SpanContext{}
	}
	if _, ok := l.spans[nonce]; ok {
		return
	}
	if len(l.order) == maxApprovalLinks {
		delete(l.spans, l.order[0])
		l.order = l.order[1:]
	}
	l.spans[nonce] = span.SpanContext()
	l.order = append(l.order, nonce)
}

// Answered links span, a request that answered the approval nonce, to
// the span of the request that asked it, when that was another request.
func (t *Telemetry) Answered(span trace.Span, nonce string) {
	if !span.IsRecording() || nonce == "" {
		return
	}
	t.links.mu.Lock()
	asked, ok := t.links.spans[nonce]
	t.links.mu.Unlock()
	if ok && asked.SpanID() != span.SpanContext().SpanID() {
		span.AddLink(trace.Link{SpanContext: asked, Attributes: []attribute.KeyValue{attribute.String("fisk_mcp.link", "approval_asked")}})
	}
}
