// Package elicit is the approval gate of fisk-mcp: before a gated command
// runs, the person behind the MCP client is asked, through elicitation or
// in their browser, to approve exactly that command, and anything other
// than an explicit approval fails closed.
//
// # One code path for every protocol version
//
// The gate always uses the multi-round-trip form of a tool call: the first
// round returns a CallToolResult carrying one InputRequest (a form with a
// required boolean "approve") and a signed RequestState; the retry carries
// the person's answer in InputResponses. On protocol 2026-07-28 the client
// asks the person and retries. On older protocol versions the SDK's own
// receiving middleware sends elicitation/create from the server and invokes
// the handler again, so the handler code is the same for both.
//
// # What an approval is bound to
//
// The SDK passes RequestState and InputResponses through without checking
// them; the gate checks everything. The state is an HMAC-SHA256 token over
// the tool name, a hash of the tool's binding (its definition and the
// program behind it, which the person cannot see but is approving), a hash of
// the canonical arguments, a hash of the exact prompt the person read, the
// session id, a hash of the caller's identity (the SDK's
// auth.TokenInfo.UserID, absent for a caller without one), a random nonce
// and an expiry. Nothing runs without an answer to the question actually
// asked:
//
//   - A state this server did not issue (malformed, altered, signed with
//     another key) is a protocol error, JSON-RPC invalid params: a genuine
//     client never sends one ([ErrInvalidState]).
//   - A retry whose answer does not answer the question asked (no answer, no
//     state, another question's id, not an elicitation result) or whose state
//     expired (the person was slow) is asked a fresh question, with a new
//     state, as the protocol asks; its decision still says why. Answers
//     under ids the server did not ask are ignored, as the protocol has a
//     server do with what it does not recognise: they never count.
//   - A retry whose nonce was already used, whose arguments, prompt, session
//     or caller differ, or whose tool changed meanwhile (a reload, a
//     replaced binary) is refused. Without sessions (stateless HTTP) the
//     caller is what keeps one person's approval from another's client:
//     the binding is in the signed state, so every replica checks it.
//
// On older protocol versions the answer must also come from the elicitation
// the SDK performed within the same tools/call: an answer the client
// presents itself is not believed, and the server asks the person instead.
//
// # Waiting for a person
//
// The gate waits at most Options.Timeout (two minutes by default). On
// 2026-07-28 the client does the waiting, so the expiry inside the signed
// state is the bound: a late answer is met with a fresh question. On older versions the SDK
// waits inside the server for elicitation/create; [Gate.Middleware] bounds
// that wait and only that wait, so a command that was approved runs with the
// call's own context, under its own timeout.
//
// # Asking in the browser
//
// Some clients cannot ask (Claude Desktop declares no elicitation) or drop
// or auto-decline the question (Cursor over stdio, Codex). With
// Options.Mode ModeBrowser the gate never asks the client and shows the
// call to the person on a page of package browser instead; with
// ModeElicitOrBrowser it asks the client when the client can and the
// browser when it cannot, and a decline through the client stays final.
// Such a call blocks inside the tools/call, telling a client that sent a
// progress token that it waits, until the person decides, the wait
// (DefaultBrowserTimeout, to fit the client's own request timeout) ends or
// the call is cancelled. No request state crosses the client, so nothing
// the client sends can answer it, and the result texts are those of the
// same endings through elicitation. The call is bound to what the page
// showed because it is the very call prepared once; the caller's check
// right before the run refuses a tool that changed meanwhile.
//
// # What it deliberately does not do
//
// The gate does not decide which tools need approval, does not validate
// arguments against a schema (the caller does that before asking) and does
// not run anything. It cannot tell a person from a client that fabricates an
// "accept": that trust is inherent to MCP elicitation.
//
// # Single use
//
// Every authentic answer, declines included, is recorded in a
// [ReplayStore] before it is interpreted, and nothing runs unless the store
// confirms the record is fresh; a store that cannot record fails the
// approval closed ([CodeUnavailable]). The default [MemoryStore] is per
// process: it refuses states issued before it started, so a restart does
// not reopen used states, but replicas sharing one key need a shared store
// (package natsstore), or an approval could be presented once to each.
package elicit
