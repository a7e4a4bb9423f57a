package browser

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/fisk-mcp/fisk-mcp/identity"
)

// sessionCookie is the Shared page's session cookie.
const sessionCookie = "fisk_approver"

// sessionTTL is how long a sign-in lasts.
const sessionTTL = 12 * time.Hour

// sessions signs and checks session cookies with a key derived from the
// approver token, so replicas reading the same token file accept each
// other's cookies, and changing the token signs everyone out; or, for a
// page that signs people in, from SignIn.Key. A session is stateless:
// "EXPIRY.MAC", the expiry in Unix seconds, or for a person signed in
// "EXPIRY.PERSON.MAC", PERSON their identity and claims (never a token)
// as base64url JSON.
type sessions struct {
	key []byte
}

// newSessions derives the key from secret (the approver token, or
// SignIn.Key); no secret means a random one.
func newSessions(secret []byte) sessions {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		rand.Read(secret)
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("fisk-mcp approvals session key"))
	return sessions{key: m.Sum(nil)}
}

func (s sessions) mac(parts ...string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// issue returns a session value valid until now+sessionTTL.
func (s sessions) issue(now time.Time) string {
	exp := strconv.FormatInt(now.Add(sessionTTL).Unix(), 10)
	return exp + "." + s.mac("session", exp)
}

// valid reports whether v is a session this token issued that has not
// expired at now.
func (s sessions) valid(v string, now time.Time) bool {
	exp, mac, ok := strings.Cut(v, ".")
	if !ok || !now.Before(unixOf(exp)) {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(s.mac("session", exp)))
}

// person is what a session of a signed-in person keeps of them.
type person struct {
	Issuer  string         `json:"iss"`
	Subject string         `json:"sub"`
	Display string         `json:"name,omitempty"`
	Claims  map[string]any `json:"claims,omitempty"`
}

// issuePerson returns a session of who valid until exp.
func (s sessions) issuePerson(who *identity.Caller, exp time.Time) (string, error) {
	b, err := json.Marshal(person{Issuer: who.Issuer, Subject: who.Subject, Display: who.Display, Claims: who.Claims})
	if err != nil {
		return "", err
	}
	v := strconv.FormatInt(exp.Unix(), 10) + "." + base64.RawURLEncoding.EncodeToString(b)
	return v + "." + s.mac("person", v), nil
}

// personOf returns who the person session v names, if v is one this key
// issued that has not expired at now.
func (s sessions) personOf(v string, now time.Time) (*identity.Caller, bool) {
	signed, mac, ok := cutLast(v, ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(s.mac("person", signed))) {
		return nil, false
	}
	exp, data, ok := strings.Cut(signed, ".")
	if !ok || !now.Before(unixOf(exp)) {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(data)
	var p person
	if err != nil || json.Unmarshal(b, &p) != nil || p.Subject == "" {
		return nil, false
	}
	return &identity.Caller{Issuer: p.Issuer, Subject: p.Subject, Display: p.Display, Claims: p.Claims, Expiry: unixOf(exp)}, true
}

// unixOf is the time of Unix seconds s; the zero time if s is not a
// number.
func unixOf(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(n, 0)
}

// cutLast cuts s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// csrf is the CSRF token of session v: derived, so any replica can check it.
func (s sessions) csrf(v string) string {
	return s.mac("csrf", v)
}
