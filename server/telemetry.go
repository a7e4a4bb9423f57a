package server

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/httpguard"
	"github.com/fisk-mcp/fisk-mcp/telemetry"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// telemetryMiddleware is the outermost receiving middleware: it starts the
// server span of every request (parent from params._meta, else the HTTP
// traceparent), records the operation's duration, and times a session from
// its initialize. With telemetry off it is not in the chain at all.
func (s *Server) telemetryMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	t := s.cfg.Telemetry
	if t == nil {
		return next
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		start := time.Now()
		r := telemetry.Request{Method: method, Transport: "pipe"}
		if extra := req.GetExtra(); extra != nil && extra.Header != nil {
			r.Transport, r.Header = "tcp", extra.Header
		}
		if p := req.GetParams(); p != nil && !isNilParams(p) {
			r.Meta = p.GetMeta()
		}
		if v, ok := req.(interface{ ProtocolVersion() string }); ok {
			r.ProtocolVersion = v.ProtocolVersion()
		}
		if ss := req.GetSession(); ss != nil {
			r.SessionID = ss.ID()
		}
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
			r.Tool = t.ToolLabel(call.Params.Name)
		}
		ctx, span := t.StartRequest(ctx, r)
		res, err := next(ctx, method, req)
		errorType := ""
		var rpc *jsonrpc.Error
		switch {
		case errors.As(err, &rpc):
			errorType = strconv.Itoa(int(rpc.Code))
		case err != nil:
			errorType = telemetry.Other
		default:
			if cr, ok := res.(*mcp.CallToolResult); ok && cr != nil && cr.IsError {
				errorType = "tool_error"
			}
		}
		telemetry.EndRequest(span, errorType)
		t.Operation(ctx, r, time.Since(start), errorType)
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && method == "initialize" && err == nil {
			go func() {
				ss.Wait()
				t.SessionEnded(r.ProtocolVersion, r.Transport, time.Since(start))
			}()
		}
		return res, err
	}
}

// isNilParams reports a typed nil behind the Params interface.
func isNilParams(p mcp.Params) bool {
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// labelTools tells telemetry which tool names label metrics: those
// registered now, the discovery tools included; and how many tools the set
// serves and the list shows.
func (s *Server) labelTools(l *listing) {
	t := s.cfg.Telemetry
	if t == nil {
		return
	}
	tools := make([]telemetry.Tool, 0, len(s.added))
	for name := range s.added {
		kind := "discovery"
		if tool, ok := l.set.Lookup(name); ok {
			kind = string(exposure.KindOf(tool))
		}
		tools = append(tools, telemetry.Tool{Name: name, Kind: kind})
	}
	t.SetTools(tools, served(l.set), len(l.tools))
}

// observeCall counts a call that ended and describes it on its request's
// span: what the log line says, but never its arguments, output or
// caller.
func (s *Server) observeCall(ctx context.Context, rec *callRecord) {
	t := s.cfg.Telemetry
	if t == nil {
		return
	}
	var bytes int64
	truncated := false
	if rec.exec != nil {
		bytes, truncated = rec.exec.BytesTotal, rec.exec.Truncated
	}
	t.Call(rec.tool, string(rec.result), bytes, truncated)
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.String("fisk_mcp.kind", string(rec.kind)),
		attribute.String("fisk_mcp.outcome", string(rec.result)),
		attribute.String("fisk_mcp.decision", rec.decision),
	}
	for k, v := range map[string]string{"fisk_mcp.executor": rec.executor, "fisk_mcp.application": rec.application,
		"fisk_mcp.gate.trigger": rec.trigger, "fisk_mcp.approval": rec.approval} {
		if v != "" {
			attrs = append(attrs, attribute.String(k, v))
		}
	}
	span.SetAttributes(attrs...)
}

// traceGate runs the gate's check inside its span, and records the
// approval's metrics: its decision, route and wait, the replay store's
// failures, and the links between the request that asked and the one
// that answered.
func (s *Server) traceGate(ctx context.Context, check func(context.Context) (*mcp.CallToolResult, elicit.Decision, error)) (*mcp.CallToolResult, elicit.Decision, error) {
	t := s.cfg.Telemetry
	if t == nil {
		return check(ctx)
	}
	request := trace.SpanFromContext(ctx)
	start := time.Now()
	done := t.ApprovalPending(ctx)
	ctx, span := telemetry.Start(ctx, "approval wait")
	res, d, err := check(ctx)
	done()
	route := "elicitation"
	if d.Via != "" {
		route = d.Via
	}
	t.Approval(ctx, string(d.Code), route, time.Since(start))
	if d.Code == elicit.CodeUnavailable {
		t.ReplayStoreError(ctx)
	}
	if d.Pending() {
		t.Asked(request, d.Nonce)
	} else {
		t.Answered(request, d.Nonce)
	}
	if span.IsRecording() {
		span.SetAttributes(attribute.String("fisk_mcp.decision", string(d.Code)), attribute.String("fisk_mcp.route", route))
		if !d.Approved() && !d.Pending() {
			telemetry.Fail(span, string(d.Code))
		}
		span.End()
	}
	return res, d, err
}

// traceSlot wraps the wait for a slot in its span and metric.
func (s *Server) traceSlot(ctx context.Context, acquire func(waiting func()) (func(), error)) (func(), error) {
	t := s.cfg.Telemetry
	if t == nil {
		return acquire(nil)
	}
	start, waited := time.Now(), false
	_, span := telemetry.Start(ctx, "slot wait")
	release, err := acquire(func() { waited = true })
	t.SlotWait(ctx, time.Since(start), waited)
	if span.IsRecording() {
		span.SetAttributes(attribute.Bool("fisk_mcp.slot.waited", waited))
		if err != nil {
			telemetry.Fail(span, string(ResultCancelled))
		}
		span.End()
	}
	return release, err
}

// countRefusals counts the requests auth refuses, by reason, when
// telemetry is on.
func (s *Server) countRefusals(auth httpguard.Authenticator) httpguard.Authenticator {
	if s.cfg.Telemetry == nil || auth == nil {
		return auth
	}
	return refusalCounter{auth, s.cfg.Telemetry}
}

type refusalCounter struct {
	httpguard.Authenticator
	t *telemetry.Telemetry
}

func (c refusalCounter) Authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	sw := &statusWriter{ResponseWriter: w}
	admitted, ok := c.Authenticator.Authenticate(sw, r)
	if ok {
		return admitted, ok
	}
	reason := telemetry.RefusedInvalid
	switch {
	case sw.status == http.StatusTooManyRequests:
		reason = telemetry.RefusedRateLimited
	case sw.status == http.StatusForbidden:
		reason = telemetry.RefusedForbidden
	case r.Header.Get("Authorization") == "":
		reason = telemetry.RefusedMissing
	}
	c.t.AuthRefused(r.Context(), reason)
	return admitted, ok
}

// statusWriter remembers the status a refusal was written with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}
