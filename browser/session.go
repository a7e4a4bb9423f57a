package browser

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// sessionCookie is the Shared page's session cookie.
const sessionCookie = "fisk_approver"

// sessionTTL is how long a sign-in lasts.
const sessionTTL = 12 * time.Hour

// sessions signs and checks session cookies with a key derived from the
// approver token, so replicas reading the same token file accept each
// other's cookies, and changing the token signs everyone out. A session
// is stateless: "EXPIRY.MAC", the expiry in Unix seconds.
type sessions struct {
	key []byte
}

func newSessions(token []byte) sessions {
	m := hmac.New(sha256.New, token)
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
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || !now.Before(time.Unix(n, 0)) {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(s.mac("session", exp)))
}

// csrf is the CSRF token of session v: derived, so any replica can check it.
func (s sessions) csrf(v string) string {
	return s.mac("csrf", v)
}
