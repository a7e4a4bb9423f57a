package policy

import (
	"fmt"
	"strings"

	"github.com/cedar-policy/cedar-go/types"
)

// Claims names the token claims a caller's attributes are read from: the
// whole set read, for a provider that names them otherwise (Entra ID and
// Keycloak put groups in "roles", say). "" means the default.
type Claims struct {
	// Email is the claim of the email attribute; default "email".
	Email string
	// Username is the claim of preferred_username; default
	// "preferred_username".
	Username string
	// Groups is the claim whose values are the caller's groups (an array
	// of strings, or one string); default "groups".
	Groups string
}

func (c Claims) withDefaults() Claims {
	if c.Email == "" {
		c.Email = "email"
	}
	if c.Username == "" {
		c.Username = "preferred_username"
	}
	if c.Groups == "" {
		c.Groups = "groups"
	}
	return c
}

// Names are the claims read, defaults filled in: what the token
// validator keeps of a token for the policy.
func (c Claims) Names() []string {
	c = c.withDefaults()
	return []string{c.Email, c.Username, c.Groups}
}

// check refuses a claim name no token could carry.
func (c Claims) check() error {
	for _, n := range []string{c.Email, c.Username, c.Groups} {
		if strings.ContainsFunc(n, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
			return fmt.Errorf("policy claim name %q: a claim name is one word of printable ASCII", n)
		}
	}
	return nil
}

// Caller is a principal built once per request, for many Allowed.
type Caller struct {
	entity types.Entity
}

// The identifiers of the callers that are not users.
const (
	// StaticID is the caller admitted by the shared bearer token.
	StaticID = "static"
	// LocalID is the caller over stdio, or on loopback without a token.
	LocalID = "local"
)

// Static is the caller admitted by the shared bearer token.
func Static() *Caller { return other(StaticID) }

// Local is the caller over stdio, or on loopback without a token.
func Local() *Caller { return other(LocalID) }

func other(id string) *Caller {
	return &Caller{entity: types.Entity{
		UID:        types.NewEntityUID("Caller", types.String(id)),
		Attributes: types.NewRecord(types.RecordMap{"kind": types.String(id)}),
	}}
}

// User is the OAuth caller userID (issuer#subject) whose validated token
// carried claims (only those of p's Claims are read; a claim of another
// type than the schema's is left out, as if absent).
func (p *Policy) User(userID string, claims map[string]any) *Caller {
	c := p.claims.withDefaults()
	attrs := types.RecordMap{"kind": types.String("user")}
	if s, ok := claims[c.Email].(string); ok {
		attrs["email"] = types.String(s)
	}
	if s, ok := claims[c.Username].(string); ok {
		attrs["preferred_username"] = types.String(s)
	}
	var groups []types.EntityUID
	for _, g := range stringsOf(claims[c.Groups]) {
		groups = append(groups, types.NewEntityUID("Group", types.String(g)))
	}
	return &Caller{entity: types.Entity{
		UID:        types.NewEntityUID("Caller", types.String(userID)),
		Parents:    types.NewEntityUIDSet(groups...),
		Attributes: types.NewRecord(attrs),
	}}
}

// ID is the caller's identifier: issuer#subject, StaticID or LocalID.
func (c *Caller) ID() string { return string(c.entity.UID.ID) }

// stringsOf is a claim's strings: an array's string members, or one
// string.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []string:
		return v
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
