// Package server serves a fisk-mcp tool set over the Model Context Protocol,
// on github.com/modelcontextprotocol/go-sdk: it registers the MCP-exposable
// tools of the current exposure.ToolSet, runs calls through validation, the
// approval gate and a bounded pool of concurrency slots, reports progress,
// turns cancellation into killed process groups, and re-registers tools when a
// new set is published so clients are told the list changed.
//
// Transports are stdio ([Server.ServeStdio]) and streamable HTTP
// ([Server.ListenHTTP], then [HTTPServer.Serve]). The HTTP surface is the
// one an operator exposes to a network, so it is closed by default:
// loopback unless a bearer token is configured, Host and Origin checked,
// bodies bounded, sessions capped, idle sessions expired. Who may reach
// /mcp and how many sessions they may hold is decided by package
// httpguard, which the server puts in front of the SDK's streamable
// handler; what an admitted request does is decided here.
//
// The package deliberately does not decide which tools exist, what their
// arguments mean or how a person approves a call: those belong to exposure,
// the tools themselves and elicit. Every harness failure (bad arguments, a
// refusal, a timeout, a failed start, a cancel) is reported to the model as
// an isError tool result it can act on, never as a protocol error; only a
// name that is not in the current set ("unknown tool") and a requestState
// the server did not issue ([elicit.ErrInvalidState]) are protocol errors,
// and so is a method of a capability the server does not declare (it
// declares tools only: prompts, resources, completions and logging are
// "method not found").
//
// # Large tool sets
//
// Above Config.DeferThreshold served tools (or always, per Config.Defer)
// tools/list is deferred: it holds the fixed discovery tools and the
// ai:no_defer tools, the same list for every session and transport (for
// every caller with the same rights, under a policy: see access.go), and
// the model finds, describes and runs the others through the discovery
// tools. Package [discovery] holds them: their descriptors, the search and
// describe answers, the search index, the executors' arguments and the
// read-only executor's refusal. This package decides when a set is
// deferred, registers the discovery tools, and keeps the rest of a
// deferred call (deferred.go): an executor hands the tool it names to
// call, which runs it exactly as a direct call, and every discovery call
// writes one line. Every served tool stays registered with the SDK, so a
// direct call of a deferred tool is an ordinary call; only the list
// differs.
//
// Nothing in this package writes to stdout: in stdio mode stdout is the
// protocol stream. Logs go to Config.Logger.
//
// # The call path
//
// One tools/call, from the transport to exec and back; each step hands the
// next a value it does not derive again:
//
//  1. Transport and guard: the request arrives on stdio, or over HTTP past
//     the host, origin and token checks of httpguard.
//  2. The SDK decodes it and dispatches through the receiving middleware.
//  3. With telemetry on (Config.Telemetry), the outermost middleware
//     starts the request's server span, its parent from params._meta or
//     the HTTP traceparent, and times it; the approval wait, slot wait and
//     run are its children (telemetry.go).
//     The server's call middleware creates the call's record and
//     puts it in the context. The gate's middleware, inside it, bounds the
//     wait for a person on protocols before 2026-07-28, where the SDK's own
//     asks the client and invokes the handler a second time with the answer.
//  4. Lookup: the handler finds the name in the set in force, with its
//     [exposure.ToolSet.Binding]. A call through an executor
//     (call_read_only_tool, call_tool) names its tool in its arguments and
//     takes this path from here on, under the real tool's name. A name
//     the set does not serve, or that the policy (Config.Policy) does not
//     let the caller list and call, is unknown, with the closest names the
//     caller may see.
//  5. Gate capability: a tool that does not implement
//     [exposure.Confirmable] is refused, before anything is validated;
//     then the read-only executor refuses a tool that is not read-only.
//  6. Prepare: [exposure.Tool.Prepare] validates and renders the call once,
//     and the server renders its redacted display line once, from
//     [exposure.Call.DisplayArgv] (secret flag values hidden). The
//     handler's second pass reuses both when the binding and the raw
//     arguments are unchanged. A command line longer than the system
//     allows ([execrunner.MaxArgv]) is refused here, before anyone is
//     asked to approve it.
//  7. Drain: the call is tracked from here, so a shutdown under way
//     refuses it before anyone is asked, and cancels it if it runs.
//  8. Gate: [elicit.Gate.Check] asks, judges the answer against the
//     prepared call and its binding and records it in the replay store
//     (each answer is used once; a store that cannot record refuses), or
//     asks again when the answer does not answer the question asked. In
//     browser approval (elicit.ModeBrowser, or ModeElicitOrBrowser for a
//     client that cannot ask) it instead waits, inside this pass, for the
//     person's click on the page showing this prepared call.
//  9. Slot: a concurrency slot within its client's share (an HTTP client
//     may not hold every slot), waiting as long as the call's context
//     allows. Then, after every wait, the name must still have the call's
//     binding and a command's binary must still be the file that was loaded
//     ([exposure.Call.CheckBinary]).
//  10. Run: a command through [execrunner.Start] with the server's
//     environment, timeout, kill grace, redaction and display line, progress
//     reported while it runs; an in-process call through [exposure.Call.Run].
//  11. Result: a command's record in a [CommandResult] envelope, an
//     in-process tool's JSON passed through, every failure an isError result.
//  12. Log: when the whole request has returned, the middleware writes its
//     one line, with the gate's decision and the approval's nonce; on
//     2026-07-28 the question and the answered retry are two requests, two
//     lines linked by that nonce.
package server
