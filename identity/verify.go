package identity

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/fisk-mcp/fisk-mcp/internal/visible"
)

// Algorithms are the signature algorithms accepted: asymmetric only.
// "none" and the HMAC family are absent, so a token whose header names
// them is refused before any key is looked at.
var Algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// Caller is who a request's access token says is calling.
type Caller struct {
	// Issuer and Subject are the token's iss and sub: together they
	// name the caller, the subject alone only within its issuer.
	Issuer, Subject string
	// Display is a name for people reading logs: the token's
	// preferred_username, email or client_id, the first it has; "" if
	// none.
	Display string
	// Scopes are the token's scopes (its scope claim, or scp).
	Scopes []string
	// Expiry is when the token expires.
	Expiry time.Time
	// Claims are the token's claims Config.Claims names, those it has:
	// what a policy reads of the caller. Never the token itself.
	Claims map[string]any
}

// UserID is the caller's identity across issuers, the SDK's
// auth.TokenInfo.UserID.
func (c *Caller) UserID() string { return c.Issuer + "#" + c.Subject }

// missing returns the scopes of want the caller's token lacks.
func (c *Caller) missing(want []string) []string {
	var out []string
	for _, s := range want {
		if !slices.Contains(c.Scopes, s) {
			out = append(out, s)
		}
	}
	return out
}

// Reasons a token is refused, as the challenge's error_description says:
// fixed words, never anything taken from the token.
var (
	errMalformed   = errors.New("the token is not a JWT signed with an accepted algorithm")
	errType        = errors.New("the token's typ header says it is not an access token")
	errSignature   = errors.New("the token's signature does not verify")
	errIssuer      = errors.New("the token was issued by another authorization server")
	errAudience    = errors.New("the token is not meant for this resource")
	errExpired     = errors.New("the token has expired")
	errNotYet      = errors.New("the token is not valid yet")
	errClaims      = errors.New("the token lacks a subject or an expiry")
	errOtherClaims = errors.New("the token's claims are not valid")
)

// describe is the reason for a refusal, for the challenge and the body.
func describe(err error) string {
	for _, e := range []error{errMalformed, errType, errSignature, errUnknownKey, errIssuer, errAudience, errExpired, errNotYet, errClaims} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	return errOtherClaims.Error()
}

// claims are the access token's claims beyond the registered ones.
type claims struct {
	Scope             string    `json:"scope"`
	Scp               scopeList `json:"scp"`
	ClientID          string    `json:"client_id"`
	Email             string    `json:"email"`
	PreferredUsername string    `json:"preferred_username"`
}

// accessTokenTypes are the typ header values of an access token, lower
// case and without the "application/" a media type may omit (RFC 7515
// §4.1.9): RFC 9068's at+jwt, and JWT, which issuers such as ORY Hydra
// set. Other JWTs an issuer signs with the same keys (ID tokens, logout
// tokens, DPoP proofs) name their own type and are refused.
var accessTokenTypes = []string{"at+jwt", "jwt"}

// typeAllowed reports whether a token's header h has no typ, or one of
// accessTokenTypes.
func typeAllowed(h jose.Header) bool {
	v, ok := h.ExtraHeaders[jose.HeaderType]
	if !ok {
		return true
	}
	s, ok := v.(string)
	s = strings.TrimPrefix(strings.ToLower(s), "application/")
	return ok && slices.Contains(accessTokenTypes, s)
}

// scopeList is an scp claim: an array of scopes (Okta), or one string of
// them separated by spaces (Microsoft Entra ID).
type scopeList []string

func (l *scopeList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = strings.Fields(one)
		return nil
	}
	return json.Unmarshal(b, (*[]string)(l))
}

// Verify checks an access token and returns its caller. An error that
// unwraps to errUnavailable means the issuer's keys could not be had; any
// other, that the token is refused. A token accepted before, with every
// scope the resource requires, answers from memory while that answer
// still holds (see verified).
func (r *Resource) Verify(ctx context.Context, token string) (*Caller, error) {
	if c, ok := r.verified.get(token, r.now(), r.keys); ok {
		return c, nil
	}
	c, gen, err := r.verify(ctx, token)
	if err != nil {
		return nil, err
	}
	if len(c.missing(r.cfg.Scopes)) == 0 {
		r.verified.put(token, c, gen)
		out := *c
		c = &out
	}
	return c, nil
}

// verify is Verify without memory: it checks token in full and returns
// its caller and the generation of the keys that verified it.
func (r *Resource) verify(ctx context.Context, token string) (*Caller, uint64, error) {
	tok, err := jwt.ParseSigned(token, Algorithms)
	if err != nil || len(tok.Headers) != 1 {
		return nil, 0, errMalformed
	}
	h := tok.Headers[0]
	if !typeAllowed(h) {
		return nil, 0, errType
	}
	keys, gen, err := r.keys.lookup(ctx, h.KeyID)
	if err != nil {
		return nil, 0, err
	}
	var std jwt.Claims
	var more claims
	var all map[string]any
	dest := []any{&std, &more}
	if len(r.cfg.Claims) > 0 {
		dest = append(dest, &all)
	}
	signed := false
	for _, k := range keys {
		pub := k.Public() // a symmetric key has none
		if pub.Key == nil || (k.Algorithm != "" && k.Algorithm != h.Algorithm) || (k.Use != "" && k.Use != "sig") {
			continue
		}
		if tok.Claims(pub, dest...) == nil {
			signed = true
			break
		}
	}
	if !signed {
		return nil, 0, errSignature
	}
	if std.Issuer != r.cfg.Issuer {
		return nil, 0, errIssuer
	}
	if !oauthex.MatchesResource(std.Audience, r.cfg.Resource) && !slices.ContainsFunc(r.cfg.Audiences, std.Audience.Contains) {
		return nil, 0, errAudience
	}
	if std.Subject == "" || std.Expiry == nil {
		return nil, 0, errClaims
	}
	switch err := std.ValidateWithLeeway(jwt.Expected{Time: r.now()}, r.cfg.Leeway); {
	case errors.Is(err, jwt.ErrExpired):
		return nil, 0, errExpired
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return nil, 0, errNotYet
	case err != nil:
		return nil, 0, errOtherClaims
	}
	c := &Caller{Issuer: std.Issuer, Subject: std.Subject, Expiry: std.Expiry.Time(), Scopes: more.Scp}
	if more.Scope != "" {
		c.Scopes = strings.Fields(more.Scope)
	}
	for _, name := range r.cfg.Claims {
		if v, ok := all[name]; ok {
			if c.Claims == nil {
				c.Claims = map[string]any{}
			}
			c.Claims[name] = v
		}
	}
	for _, d := range []string{more.PreferredUsername, more.Email, more.ClientID} {
		if d != "" {
			// A name people read in logs and on pages, which a person may
			// have chosen: neutralised and bounded here, once.
			c.Display = visible.Cut(visible.Escape(d, visible.Graphic), maxDisplay)
			break
		}
	}
	return c, gen, nil
}

// maxDisplay bounds, in runes, a caller's display name.
const maxDisplay = 128

// The keys of a caller's subject and display name in auth.TokenInfo.Extra.
const (
	extraSubject = "fisk-mcp/subject"
	extraDisplay = "fisk-mcp/display"
	extraClaims  = "fisk-mcp/claims"
)

// Claims returns the claims of the caller info that Config.Claims named
// and its token carried (see Caller.Claims), or nil.
func Claims(info *auth.TokenInfo) map[string]any {
	if info == nil {
		return nil
	}
	c, _ := info.Extra[extraClaims].(map[string]any)
	return c
}

// Named returns the subject and display name of the caller info (the
// SDK's TokenInfo of a request a Resource admitted, as a tool handler
// sees it), or "" for a request without one.
func Named(info *auth.TokenInfo) (subject, display string) {
	if info == nil {
		return "", ""
	}
	subject, _ = info.Extra[extraSubject].(string)
	display, _ = info.Extra[extraDisplay].(string)
	return subject, display
}

type callerKey struct{}

// CallerFrom returns the caller a Resource admitted the request of ctx
// for, or nil.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// TokenInfo is c as the SDK's auth.TokenInfo, the form a request's caller
// takes on its context: UserID, scopes, expiry, and in Extra the subject,
// display name and claims (see Named and Claims).
func TokenInfo(c *Caller) *auth.TokenInfo {
	return &auth.TokenInfo{
		Scopes:     c.Scopes,
		Expiration: c.Expiry,
		UserID:     c.UserID(),
		Extra:      map[string]any{extraSubject: c.Subject, extraDisplay: c.Display, extraClaims: c.Claims},
	}
}

// withCaller returns req with c on its context, and as the SDK's
// auth.TokenInfo, which binds a session to the user who opened it. The
// SDK sets TokenInfo only through its own middleware, so req passes
// through it with a verifier that returns what Verify found; it refuses
// only a token past its expiry, which Verify has already checked with the
// same leeway.
func (r *Resource) withCaller(req *http.Request, c *Caller) (*http.Request, bool) {
	info := TokenInfo(c)
	verified := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return info, nil }
	var out *http.Request
	attach := auth.RequireBearerToken(verified, &auth.RequireBearerTokenOptions{ClockSkew: r.cfg.Leeway})
	attach(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { out = r })).ServeHTTP(discard{}, req)
	if out == nil {
		return nil, false
	}
	return out.WithContext(context.WithValue(out.Context(), callerKey{}, c)), true
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

// isLoopbackName reports whether host names the loopback interface.
func isLoopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
