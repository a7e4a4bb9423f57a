package identity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"golang.org/x/time/rate"

	"github.com/fisk-mcp/fisk-mcp/internal/echo"
)

// Bounds on fetching the issuer's keys.
const (
	// keyRefetchEvery is how often, past a small burst, a token naming an
	// unknown key may make the server fetch the issuer's keys again: a
	// rotation is followed at once, a stream of made-up key IDs costs the
	// issuer one request per interval.
	keyRefetchEvery = 30 * time.Second
	keyRefetchBurst = 3
	// keyMaxAge is how long fetched keys are used before they are fetched
	// again, so that a key the issuer withdraws stops being accepted.
	keyMaxAge = 10 * time.Minute
	// fetchTimeout bounds one fetch of the issuer's metadata or keys.
	fetchTimeout = 10 * time.Second
	// maxDocBytes bounds the documents read from the issuer.
	maxDocBytes = 1 << 20
)

// errUnknownKey: the token names a key the issuer does not publish.
var errUnknownKey = errors.New("the token is signed with a key the authorization server does not publish")

// errUnavailable wraps a failure to fetch the issuer's metadata or keys:
// the token could not be checked, which is no fault of the caller's.
var errUnavailable = errors.New("the authorization server's keys could not be fetched")

// keySet holds the issuer's published keys, fetched on first need and
// again when a token names a key it does not hold, at a bounded rate.
// Fetches are shared: callers that need keys while one is in flight wait
// for it instead of starting their own.
type keySet struct {
	issuer string
	client *http.Client
	limit  *rate.Limiter
	maxAge time.Duration // keyMaxAge, but in tests

	mu      sync.Mutex
	jwksURI string
	keys    jose.JSONWebKeySet
	fetched bool          // a fetch was tried
	at      time.Time     // when keys were fetched
	gen     uint64        // counts the fetches that replaced keys
	err     error         // the last fetch's error, nil after a success
	pending chan struct{} // closed when the fetch in flight ends; nil when none is
}

func newKeySet(issuer string, client *http.Client) *keySet {
	return &keySet{issuer: issuer, client: client, limit: rate.NewLimiter(rate.Every(keyRefetchEvery), keyRefetchBurst), maxAge: keyMaxAge}
}

// lookup returns the keys of ID kid, and the generation of the set they
// belong to, fetching the set when it does not hold them, or holds them
// for longer than maxAge, and the rate allows. Keys that could not be
// fetched again are used as they were.
func (k *keySet) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, uint64, error) {
	refetched := false
	for {
		k.mu.Lock()
		found, gen := k.keys.Key(kid), k.gen
		if len(found) > 0 && (refetched || time.Since(k.at) <= k.maxAge) {
			k.mu.Unlock()
			return found, gen, nil
		}
		if ch := k.pending; ch != nil {
			k.mu.Unlock()
			select {
			case <-ch:
				refetched = true
				continue
			case <-ctx.Done():
				return nil, 0, ctx.Err()
			}
		}
		if refetched || (k.fetched && !k.limit.Allow()) {
			err := k.err
			k.mu.Unlock()
			if len(found) > 0 {
				return found, gen, nil
			}
			if err != nil {
				return nil, 0, err
			}
			return nil, 0, errUnknownKey
		}
		ch := make(chan struct{})
		k.pending = ch
		k.mu.Unlock()

		keys, uri, err := k.fetch(context.WithoutCancel(ctx))
		k.mu.Lock()
		k.fetched, k.err, k.pending = true, err, nil
		if err == nil {
			k.keys, k.jwksURI, k.at = keys, uri, time.Now()
			k.gen++
		}
		close(ch)
		k.mu.Unlock()
		refetched = true
	}
}

// current reports whether gen is the generation of the keys held, and
// they are within their maximum age: what a token verified under them
// still needs.
func (k *keySet) current(gen uint64) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return gen == k.gen && time.Since(k.at) <= k.maxAge
}

// fetch discovers the key set's address, once, and fetches the keys.
func (k *keySet) fetch(ctx context.Context) (jose.JSONWebKeySet, string, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	k.mu.Lock()
	uri := k.jwksURI
	k.mu.Unlock()
	if uri == "" {
		var err error
		if uri, err = discoverJWKS(ctx, k.issuer, k.client); err != nil {
			return jose.JSONWebKeySet{}, "", fmt.Errorf("%w: %v", errUnavailable, err)
		}
	}
	var set jose.JSONWebKeySet
	if err := getJSON(ctx, k.client, uri, &set); err != nil {
		return set, "", fmt.Errorf("%w from %s: %v", errUnavailable, uri, err)
	}
	return set, uri, nil
}

// issuerMetadata is what a resource server reads of an issuer's RFC 8414
// or OpenID metadata. Nothing a client needs (endpoints, PKCE methods) is
// required: Microsoft Entra ID, for one, does not list its PKCE methods,
// and this server only checks tokens.
type issuerMetadata struct {
	Issuer  string `json:"issuer"`
	JWKSURI string `json:"jwks_uri"`
}

// discoverJWKS finds the issuer's jwks_uri in its RFC 8414 metadata, or
// else in its OpenID Connect discovery document. Either must name the
// issuer as configured (a trailing slash aside, as the SDK's clients
// allow), and an https jwks_uri, or http on loopback.
func discoverJWKS(ctx context.Context, issuer string, client *http.Client) (string, error) {
	for _, u := range metadataURLs(issuer) {
		var meta issuerMetadata
		err := getJSON(ctx, client, u, &meta)
		var status statusError
		if errors.As(err, &status) && status >= 400 && status < 500 {
			continue // not served there
		}
		if err != nil {
			return "", fmt.Errorf("reading %s: %v", u, err)
		}
		if strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return "", fmt.Errorf("%s names the issuer %s: give --oauth-issuer exactly as the authorization server's metadata writes it", u, echo.Quoted(meta.Issuer))
		}
		if meta.JWKSURI == "" {
			return "", fmt.Errorf("%s names no jwks_uri: the authorization server must publish the keys its access tokens are signed with", u)
		}
		if err := checkFetchURL(meta.JWKSURI); err != nil {
			return "", fmt.Errorf("%s: jwks_uri %v", u, err)
		}
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("no authorization server metadata at %s: check --oauth-issuer", strings.Join(metadataURLs(issuer), " or "))
}

// checkFetchURL refuses a URL to fetch keys from that is not https, or
// http on loopback.
func checkFetchURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackName(u.Hostname()))) {
		return fmt.Errorf("%s is not an https URL", echo.Quoted(s))
	}
	return nil
}

// metadataURLs are the addresses of an issuer's metadata: RFC 8414's,
// the well-known path inserted before the issuer's path, then OpenID
// Connect's, appended to it.
func metadataURLs(issuer string) []string {
	trimmed := strings.TrimSuffix(issuer, "/")
	scheme, rest, _ := strings.Cut(trimmed, "://")
	host, path, _ := strings.Cut(rest, "/")
	if path != "" {
		path = "/" + path
	}
	return []string{
		scheme + "://" + host + "/.well-known/oauth-authorization-server" + path,
		trimmed + "/.well-known/openid-configuration",
	}
}

// statusError is an HTTP status other than 200 OK.
type statusError int

func (e statusError) Error() string {
	return fmt.Sprintf("status %d %s", int(e), http.StatusText(int(e)))
}

// getJSON decodes the JSON document at u into v, reading at most
// maxDocBytes.
func getJSON(ctx context.Context, client *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return statusError(resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, maxDocBytes)).Decode(v)
}
