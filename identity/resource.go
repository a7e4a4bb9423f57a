package identity

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/fisk-mcp/fisk-mcp/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// DefaultLeeway is the clock skew allowed between this server and the
// authorization server when checking exp, nbf and iat.
const DefaultLeeway = 30 * time.Second

// MetadataPath is the well-known path of RFC 9728 protected resource
// metadata; a resource with a path serves it at MetadataPath + path too.
const MetadataPath = "/.well-known/oauth-protected-resource"

// Config describes the protected resource and the authorization server
// whose tokens it accepts.
type Config struct {
	// Issuer is the authorization server's issuer identifier, exactly as
	// its tokens' iss claim and its metadata's issuer write it. Required.
	Issuer string
	// Resource is this server's resource identifier (RFC 8707), the URL
	// clients connect to, such as https://mcp.example.com/mcp: the
	// audience every token must carry. Required.
	Resource string
	// Audiences are further values a token's aud may name instead of
	// Resource: the identifier an authorization server writes there when
	// it is not the resource URL (Microsoft Entra ID writes the API's
	// application ID). Each must name this server alone.
	Audiences []string
	// Scopes are the scopes every request's token must hold; none means
	// any token for this resource will do.
	Scopes []string
	// Claims are the names of the token claims kept for the caller
	// (Caller.Claims, and Claims of its TokenInfo): those a policy reads,
	// such as email and groups. None by default.
	Claims []string
	// Leeway is the clock skew allowed; 0 means DefaultLeeway.
	Leeway time.Duration
	// Client fetches the issuer's metadata and keys; nil means a client
	// of its own.
	Client *http.Client
	// Logger receives the refusals worth an operator's attention (the
	// keys could not be fetched); nil logs nothing.
	Logger *slog.Logger
}

// Resource is a protected resource: its metadata, and the
// Authenticator of the access tokens its Config describes.
type Resource struct {
	cfg         Config
	metadataURL string
	metadata    http.Handler
	keys        *keySet
	verified    verified
	now         func() time.Time // time.Now, but in tests
	log         *slog.Logger
}

// New checks cfg and returns its Resource. It fetches nothing: the
// issuer's keys are fetched when the first token arrives, so that the
// server may start before its authorization server.
func New(cfg Config) (*Resource, error) {
	if cfg.Resource == "" {
		return nil, errors.New("oauth resource: give the URL clients connect to, such as https://mcp.example.com/mcp")
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.Leeway <= 0 {
		cfg.Leeway = DefaultLeeway
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: fetchTimeout}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	meta := &oauthex.ProtectedResourceMetadata{
		Resource:               cfg.Resource,
		AuthorizationServers:   []string{cfg.Issuer},
		ScopesSupported:        cfg.Scopes,
		BearerMethodsSupported: []string{"header"},
	}
	return &Resource{
		cfg:         cfg,
		metadataURL: MetadataURL(cfg.Resource),
		metadata:    auth.ProtectedResourceMetadataHandler(meta),
		keys:        newKeySet(cfg.Issuer, cfg.Client),
		now:         time.Now,
		log:         log,
	}, nil
}

// Check reports what is wrong with the issuer, the resource (when set)
// and the scopes of c, saying how to write them.
func (c Config) Check() error {
	if err := checkURL("issuer", c.Issuer); err != nil {
		return err
	}
	if c.Resource != "" {
		if err := checkURL("resource", c.Resource); err != nil {
			return err
		}
	}
	for _, a := range c.Audiences {
		if a == "" || strings.ContainsFunc(a, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
			return fmt.Errorf("oauth audience %s: an audience is one word of printable ASCII characters, such as the API's application ID", echo.Quoted(a))
		}
	}
	for _, s := range c.Scopes {
		if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == '"' || r == '\\' || r >= 0x7f }) {
			return fmt.Errorf("oauth scope %s: a scope is one word of printable ASCII characters without quotes or backslashes", echo.Quoted(s))
		}
	}
	return nil
}

// checkURL refuses an identifier that is not an absolute http(s) URL
// without query or fragment; plain http only on loopback.
func checkURL(what, s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("oauth %s %s: give an absolute https URL without query or fragment, such as https://auth.example.com/", what, echo.Quoted(s))
	}
	if u.Scheme == "http" && !isLoopbackName(u.Hostname()) {
		return fmt.Errorf("oauth %s %s: use https; plain http is only for a loopback host", what, echo.Quoted(s))
	}
	return nil
}

// MetadataURL is the address of the protected resource metadata of
// resource (RFC 9728 §3.1): the well-known path inserted between its host
// and its path.
func MetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	paths := MetadataPaths(resource)
	return u.Scheme + "://" + u.Host + paths[len(paths)-1]
}

// MetadataPaths are the paths the metadata of resource is served at: the
// well-known path, and its form suffixed with the resource's path.
func MetadataPaths(resource string) []string {
	paths := []string{MetadataPath}
	if u, err := url.Parse(resource); err == nil {
		if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
			paths = append(paths, MetadataPath+p)
		}
	}
	return paths
}

// Metadata serves the RFC 9728 document; it needs no token.
func (r *Resource) Metadata() http.Handler { return r.metadata }

// MetadataURL is where clients find the metadata, as the challenge says.
func (r *Resource) MetadataURL() string { return r.metadataURL }

// Authenticate admits req when it carries an access token for this
// resource with every required scope, handing on a copy without its
// Authorization header and with the caller on its context. Otherwise it
// writes the refusal: 401 with a challenge naming the metadata, 403 for a
// missing scope, 503 when the issuer's keys cannot be had.
func (r *Resource) Authenticate(w http.ResponseWriter, req *http.Request) (*http.Request, bool) {
	token, ok := bearer(req.Header.Get("Authorization"))
	if !ok {
		r.challenge(w, http.StatusUnauthorized, "", "Unauthorized: an OAuth access token is required; the client finds the authorization server in the resource metadata at "+r.metadataURL)
		return nil, false
	}
	caller, err := r.Verify(req.Context(), token)
	switch {
	case errors.Is(err, errUnavailable):
		r.log.Warn("refusing a request: the authorization server's keys could not be fetched", "issuer", r.cfg.Issuer, "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(int(keyRefetchEvery/time.Second)))
		http.Error(w, "Service Unavailable: the authorization server's keys could not be fetched to check the token; try again later", http.StatusServiceUnavailable)
		return nil, false
	case err != nil:
		r.challenge(w, http.StatusUnauthorized, `error="invalid_token", error_description="`+describe(err)+`"`, "Unauthorized: invalid access token: "+describe(err))
		return nil, false
	}
	if missing := caller.missing(r.cfg.Scopes); len(missing) > 0 {
		r.challenge(w, http.StatusForbidden, `error="insufficient_scope"`, "Forbidden: the access token lacks the scope "+strings.Join(missing, " ")+"; ask the authorization server for it")
		return nil, false
	}
	out, ok := r.withCaller(req, caller)
	if !ok {
		r.challenge(w, http.StatusUnauthorized, `error="invalid_token", error_description="the token has expired"`, "Unauthorized: invalid access token: the token has expired")
		return nil, false
	}
	out.Header = req.Header.Clone()
	out.Header.Del("Authorization")
	return out, true
}

// challenge writes a refusal with the Bearer challenge of RFC 6750 and
// RFC 9728: the metadata's address, params (an error), and the scopes
// required.
func (r *Resource) challenge(w http.ResponseWriter, status int, params, msg string) {
	c := `Bearer resource_metadata="` + r.metadataURL + `"`
	if params != "" {
		c += ", " + params
	}
	if len(r.cfg.Scopes) > 0 {
		c += `, scope="` + strings.Join(r.cfg.Scopes, " ") + `"`
	}
	w.Header().Set("WWW-Authenticate", c)
	http.Error(w, msg, status)
}

// bearer extracts the token of an "Authorization: Bearer" header.
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
