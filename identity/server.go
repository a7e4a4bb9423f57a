package identity

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Config is the configuration r was made with, defaults filled in: for
// a page of the same server that signs people in with the same
// authorization server. Its slices are r's own: do not change them.
func (r *Resource) Config() Config { return r.cfg }

// ServerMetadata fetches the authorization server's RFC 8414 metadata,
// or else its OpenID Connect discovery document, as the keys are found:
// its authorization and token endpoints, for a client of it. Either
// must name the issuer exactly as configured.
func (r *Resource) ServerMetadata(ctx context.Context) (*oauthex.AuthServerMeta, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	for _, u := range metadataURLs(r.cfg.Issuer) {
		meta, err := oauthex.GetAuthServerMeta(ctx, u, r.cfg.Issuer, r.cfg.Client)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %v", u, err)
		}
		if meta != nil {
			return meta, nil
		}
	}
	return nil, fmt.Errorf("no authorization server metadata at %s: check --oauth-issuer", strings.Join(metadataURLs(r.cfg.Issuer), " or "))
}
