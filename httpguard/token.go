package httpguard

import (
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Bearer is the [Authenticator] of one shared bearer token: a request must
// carry "Authorization: Bearer <token>". Both sides are hashed before the
// constant-time comparison, so neither the content nor the length of the
// token leaks through timing. Wrong tokens are bounded per client address
// by a [Limiter]: past the allowance, a request from that address is
// refused with 429 and Retry-After, its token unchecked, and the log says
// so once per allowance used up rather than once per guess.
type Bearer struct {
	want    [sha256.Size]byte
	guesses *Limiter
	log     *slog.Logger
}

// NewBearer returns the Bearer of token, which must not be empty (see
// [MinTokenLen]), with a Limiter of the default allowance; log receives
// the line saying an address used it up (nil logs nothing).
func NewBearer(token string, log *slog.Logger) *Bearer {
	return &Bearer{want: sha256.Sum256([]byte(token)), guesses: NewLimiter(LimiterOptions{}), log: logger(log)}
}

// Authenticate admits r when it carries the token, and otherwise answers
// 401 with a Bearer challenge, or 429 once its address has used up its
// allowance of wrong tokens.
func (b *Bearer) Authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	got, ok := bearer(r.Header.Get("Authorization"))
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="fisk-mcp"`)
		http.Error(w, "Unauthorized: a bearer token is required", http.StatusUnauthorized)
		return nil, false
	}
	client := ClientOf(r.RemoteAddr)
	v := b.guesses.Verify(client, func() bool {
		sum := sha256.Sum256([]byte(got))
		return subtle.ConstantTimeCompare(sum[:], b.want[:]) == 1
	})
	if v.Wait > 0 {
		secs := strconv.Itoa(int(v.Wait / time.Second))
		w.Header().Set("Retry-After", secs)
		http.Error(w, "Too Many Requests: too many wrong bearer tokens from this address; try again in "+secs+" s", http.StatusTooManyRequests)
		return nil, false
	}
	if !v.Right {
		if v.UsedUp {
			b.log.Warn("refusing bearer tokens from an address that sent too many wrong ones", "client", client, "allowance", b.guesses.Allowance())
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="fisk-mcp", error="invalid_token"`)
		http.Error(w, "Unauthorized: invalid bearer token", http.StatusUnauthorized)
		return nil, false
	}
	return r, true
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
