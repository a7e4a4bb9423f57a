package server

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Redaction at the edge
//
// A command's output and display line are redacted where they are made
// (execrunner, prepare). What else leaves the server quotes the request:
// a validation error names the invalid value or the unknown argument, an
// unknown tool error its name. The model chose those strings, and may have
// been handed a secret by the output of another tool; so every failed
// call's texts and every protocol error pass through the Redactor on the
// way out, as every log line's text fields do (logCall).

// redactResult redacts the texts of a failed call's result. A successful
// result is left as produced: a command's record is redacted already, and
// an in-process tool's JSON is the tool's own. call defers it before
// recoverPanic, so it also covers the result a panic becomes.
func (s *Server) redactResult(res **mcp.CallToolResult) {
	if res := *res; res != nil && res.IsError {
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				t.Text = s.cfg.Redactor.Redact(t.Text)
			}
		}
	}
}

// redactError redacts a protocol error's message: the SDK's own "unknown
// tool" quotes the name the client sent. Other errors pass as they are.
func (s *Server) redactError(err error) error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		rpc.Message = s.cfg.Redactor.Redact(rpc.Message)
	}
	return err
}
