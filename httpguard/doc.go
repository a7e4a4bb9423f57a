// Package httpguard decides who may reach a server's HTTP endpoints, and
// how much of it they may take, before anything reads what a request asks
// for. It is the admission layer of fisk-mcp's streamable HTTP transport:
//
//   - the Host check ([Guard.Handler]) refuses names the server does not
//     know as its own, against DNS rebinding;
//   - the Origin check ([Guard.Handler]) refuses cross-origin requests
//     from browsers;
//   - an [Authenticator] ([Guard.Authenticate]) refuses requests without a
//     credential; [Bearer] checks one shared bearer token, bounding wrong
//     guesses per client with a [Limiter];
//   - the [SessionCap] bounds the sessions clients may hold, and [Limits]
//     what one connection may take (time to send a request, header size,
//     idle time);
//   - [ReadTokenFile] and [TokenFromEnv] read a token an operator gives.
//
// The guard is meant to sit in front of a server that is closed by
// default: every check refuses with a status and a message saying what to
// do (which flag allows a name or an origin, when to try again).
//
// It deliberately knows nothing of what a request asks for: it never reads
// a body, decodes JSON-RPC or looks at a tool, and it binds no request to
// a caller's identity or policy: package identity's OAuth resource server
// is another Authenticator, passing on a request whose context names the
// caller. The body size is bounded by the transport that reads the body
// (the SDK's). What happens to an admitted request is
// the server's.
package httpguard
