package server

import (
	"context"
	"errors"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callMiddleware is the server's receiving middleware. New installs it
// last, so it wraps the gate's middleware and the SDK's, and sees each
// tools/call request once, however many times the SDK invokes the handler
// for it. It creates the call's record, puts it in the context for every
// handler pass and for the refusals the gate's middleware makes on its own
// (no answer in time, asking failed), and writes the call's one log line
// when the whole request has returned.
//
// A name the server does not serve is answered here, as unknown with the
// closest served names, and logged; a request that otherwise never reached
// the handler (the SDK answered it itself) and that the gate did not end is
// not a call of a tool and writes no line.
func (s *Server) callMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok {
			return next(ctx, method, req)
		}
		st := newCallState(call)
		ctx, stop, gone := endOnInputEnd(ctx)
		defer stop()
		if gone {
			// Read before the end, begun after it: nobody would read what
			// it did.
			st.handled, st.rec.result = true, ResultCancelled
			if set := s.tools.Load(); set != nil {
				if t, ok := set.Lookup(st.rec.tool); ok {
					st.rec.kind = exposure.KindOf(t)
				}
			}
			s.logCall(ctx, st.rec)
			return errorResult("nothing ran: %v before the call started", errInputEnded), nil
		}
		if name, a := st.rec.tool, s.accessOf(call.Extra); !s.answers(name, a) {
			// Answered here rather than by the SDK, with the names the
			// caller most likely meant; the line records the attempt.
			st.handled, st.rec.result = true, ResultUnknownTool
			s.logCall(ctx, st.rec)
			return nil, s.redactError(s.unknownToolError(s.tools.Load(), name, a))
		}
		ctx = context.WithValue(ctx, callStateKey{}, st)
		ctx = elicit.ReportRefusals(ctx, st.refused)
		defer func() {
			if st.handled {
				s.logCall(ctx, st.rec)
			}
		}()
		res, err := next(ctx, method, req)
		return onTheWireCall(res), s.redactError(err)
	}
}

// callState is one tools/call request: its record and, for the handler's
// second pass on protocol versions before 2026-07-28, the call the first
// pass prepared. A request's passes run one after the other, so it needs
// no lock.
type callState struct {
	rec      *callRecord
	prepared *prepared
	// handled is set once the handler or the gate worked on the request.
	handled bool
}

type callStateKey struct{}

func newCallState(req *mcp.CallToolRequest) *callState {
	name := ""
	if req != nil && req.Params != nil {
		name = req.Params.Name
	}
	return &callState{rec: newCallRecord(name, req)}
}

// requestOf returns the state the middleware put in ctx, or nil.
func requestOf(ctx context.Context) *callState {
	st, _ := ctx.Value(callStateKey{}).(*callState)
	return st
}

// refused records a refusal the gate's middleware made on its own, after
// the handler asked: the request ends there, and its line says so.
func (st *callState) refused(r elicit.Refusal) {
	st.handled = true
	st.rec.decided(r.Decision)
	st.rec.result = ResultRefused
	if st.rec.argv == st.rec.tool && r.CommandLine != "" {
		st.rec.argv = r.CommandLine
	}
}

// inputEndKey is the context key of a stdio session's input end: a channel
// closed once the client has closed its input (see ServeStdio).
type inputEndKey struct{}

// errInputEnded is why a call of a stdio client that has left ends.
var errInputEnded = errors.New("the client closed its input")

// endOnInputEnd returns ctx, ended with errInputEnded as its cause once
// the input of the stdio session it belongs to ends, and the function that
// releases the watch. gone reports that the input had already ended. A
// request of any other transport is returned as it is.
//
// Only calls are ended this way. A call can take as long as its command or
// a person's approval (the gate's wait runs inside this context), and a
// client that has left reads neither; every other request (a tools/list,
// a ping) is answered at once, and answering it is what a client that
// wrote its requests and closed its input expects.
func endOnInputEnd(ctx context.Context) (_ context.Context, stop func(), gone bool) {
	ended, ok := ctx.Value(inputEndKey{}).(<-chan struct{})
	if !ok {
		return ctx, func() {}, false
	}
	select {
	case <-ended:
		return ctx, func() {}, true
	default:
	}
	ctx, cancel := context.WithCancelCause(ctx)
	release := make(chan struct{})
	go func() {
		select {
		case <-ended:
			cancel(errInputEnded)
		case <-release:
		}
	}()
	return ctx, func() {
		close(release)
		cancel(nil)
	}, false
}
