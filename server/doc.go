// Package server serves a fisk-mcp tool set over the Model Context Protocol,
// on github.com/modelcontextprotocol/go-sdk: it registers the MCP-exposable
// tools of the current exposure.ToolSet, runs calls through validation, the
// approval gate and a bounded pool of concurrency slots, reports progress,
// turns cancellation into killed process groups, and re-registers tools when a
// new set is published so clients are told the list changed.
//
// Transports are stdio ([Server.ServeStdio]) and streamable HTTP
// ([Server.ListenHTTP], then [HTTPServer.Serve]). The HTTP surface is the one an operator exposes to a network,
// so it is closed by default: loopback unless a bearer token is configured,
// Host and Origin checked, bodies bounded, idle sessions expired.
//
// The package deliberately does not decide which tools exist, what their
// arguments mean or how a person approves a call: those belong to exposure,
// the tools themselves and elicit. Every harness failure (bad arguments, a
// refusal, a timeout, a failed start, a cancel) is reported to the model as
// an isError tool result it can act on, never as a protocol error; only a
// name that is not in the current set is a protocol error ("unknown tool").
//
// Nothing in this package writes to stdout: in stdio mode stdout is the
// protocol stream. Logs go to Config.Logger.
package server
