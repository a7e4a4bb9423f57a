package elicit

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The request state is "v1.<payload>.<mac>": base64url JSON claims and the
// base64url HMAC-SHA256 of a domain-separated copy of the payload. It is
// signed, not encrypted: nothing in it is secret (hashes, a nonce, a time).
const (
	stateVersion = "v1"
	stateDomain  = "fisk-mcp approval request state v1\x00"
	// maxStateLen bounds the work done on a state a client sends back; a
	// genuine one is about 400 bytes.
	maxStateLen = 2048
	nonceBytes  = 16
)

var b64 = base64.RawURLEncoding.Strict()

// binding is what an approval is bound to: recomputed on every round from
// the call itself and compared with the signed claims.
type binding struct {
	Tool        string `json:"t"`
	ToolBinding string `json:"f"` // hex SHA-256 of Prompt.Binding
	Args        string `json:"a"` // hex SHA-256 of the canonical arguments
	Prompt      string `json:"p"` // hex SHA-256 of the exact message shown
	Session     string `json:"s"` // hex SHA-256 of the session id ("" included)
	// Caller is the hex SHA-256 of the caller's identity (the SDK's
	// auth.TokenInfo.UserID, issuer#subject), "" for a caller without
	// one. States issued before callers were bound have no such field and
	// so hold for callers without identity only.
	Caller string `json:"c,omitempty"`
}

// claims is the signed content of a request state.
type claims struct {
	binding
	Nonce   string `json:"n"` // hex, nonceBytes random bytes
	Issued  int64  `json:"i"` // Unix milliseconds; a state without it was issued at 0
	Expires int64  `json:"e"` // Unix milliseconds
}

func (c claims) expiry() time.Time { return time.UnixMilli(c.Expires) }

func (c claims) issued() time.Time { return time.UnixMilli(c.Issued) }

// inputID is the InputRequests key of the question asked for this state.
// Deriving it from the nonce makes an answer to any other id one that was
// never asked for.
func (c claims) inputID() string { return "approve-" + c.Nonce }

// diff names the first binding that differs, "" when all agree.
func (b binding) diff(o binding) string {
	switch {
	case b.Tool != o.Tool:
		return fmt.Sprintf("tool differs: approved %q, called %q", b.Tool, o.Tool)
	case b.ToolBinding != o.ToolBinding:
		return "the tool's definition or program changed after the user was asked"
	case b.Args != o.Args:
		return "arguments differ from the approved ones"
	case b.Prompt != o.Prompt:
		return "the command line shown to the user differs from the one that would run"
	case b.Session != o.Session:
		return "approval was issued to another session"
	case b.Caller != o.Caller:
		return "approval was issued to another caller"
	}
	return ""
}

func hashString(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// callerHash is the Caller binding of a caller whose identity is userID.
func callerHash(userID string) string {
	if userID == "" {
		return ""
	}
	return hashString(userID)
}

func newNonce() (string, error) {
	n := make([]byte, nonceBytes)
	if _, err := rand.Read(n); err != nil {
		return "", fmt.Errorf("generating a nonce: %w", err)
	}
	return hex.EncodeToString(n), nil
}

// signer signs and verifies request states with one key.
type signer struct{ key []byte }

func (s signer) mac(payload string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(stateDomain))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

func (s signer) sign(c claims) (string, error) {
	data, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	payload := b64.EncodeToString(data)
	return stateVersion + "." + payload + "." + b64.EncodeToString(s.mac(payload)), nil
}

// verify returns the claims of a state this key signed. Any error means the
// state is not authentic; expiry and bindings are the caller's to check.
func (s signer) verify(state string) (claims, error) {
	var c claims
	if len(state) > maxStateLen {
		return c, fmt.Errorf("request state is %d bytes, longer than any this server issues", len(state))
	}
	version, rest, ok := strings.Cut(state, ".")
	if !ok || version != stateVersion {
		return c, errors.New("request state has an unknown format")
	}
	payload, sig, ok := strings.Cut(rest, ".")
	if !ok {
		return c, errors.New("request state has no signature")
	}
	got, err := b64.DecodeString(sig)
	if err != nil {
		return c, errors.New("request state signature is not base64url")
	}
	if !hmac.Equal(got, s.mac(payload)) {
		return c, errors.New("request state signature does not verify")
	}
	data, err := b64.DecodeString(payload)
	if err != nil {
		return c, errors.New("request state payload is not base64url")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("request state payload: %w", err)
	}
	if len(c.Nonce) != 2*nonceBytes || !isHex(c.Nonce) {
		return c, errors.New("request state has a malformed nonce")
	}
	return c, nil
}
