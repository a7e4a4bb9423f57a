// Package identity makes a streamable HTTP endpoint an OAuth 2.1 resource
// server, as the MCP authorization specification asks of a server that
// authorizes: it serves RFC 9728 protected resource metadata naming the
// authorization server, and admits a request only with an access token
// that server issued for this resource.
//
// A [Resource] is an Authenticator in the sense of package httpguard: it
// answers a request without a usable token with 401 and a
// WWW-Authenticate challenge pointing at the metadata (error
// "invalid_token" when a token was sent), one whose token lacks a required
// scope with 403 "insufficient_scope", and passes on any other request
// with the caller on its context, as the SDK's auth.TokenInfo (so that a
// session stays bound to the user who opened it) and as a [Caller].
//
// An access token is a JWT (RFC 9068) whose signature is checked against
// the issuer's published keys, found through its RFC 8414 or OpenID
// metadata; a token naming a key the server does not know makes it fetch
// the keys again, at a bounded rate, so that a rotation is followed and a
// stream of made-up key IDs cannot make it hammer the issuer; keys held
// for ten minutes are fetched again, so that a withdrawn key stops being
// accepted. Only
// asymmetric algorithms are accepted (never "none", never HMAC, whose key
// would be a secret shared with every resource), and the jku, x5u and
// embedded-key headers are never followed: the keys are the issuer's,
// found from its configured identifier. The issuer must match exactly, the
// audience must name this resource (RFC 8707: a token meant for another
// server is refused, never passed on), exp and nbf hold with
// [DefaultLeeway], and a typ header, where the issuer sets one, names an
// access token (at+jwt, or JWT), not an ID token or another JWT signed
// with the same keys.
//
// A client sends the same token with every request; a token accepted
// once is remembered, by its hash, until its exp or until the keys it was
// verified under are fetched again, whichever comes first, so that the
// signature is checked once per token rather than once per call.
//
// No token passes through: the Authorization header is removed from the
// request handed on, so nothing behind it (a command's environment, a log
// line, a result, an approval page) can see it.
//
// It deliberately does not decide what a caller may do beyond the scopes
// every request needs (that is policy's), runs no authorization server,
// and does nothing over stdio, where the specification says not to use
// this flow.
package identity
