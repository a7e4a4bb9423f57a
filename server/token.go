package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fisk-mcp/fisk-mcp/internal/authlimit"
)

// requireToken guards /mcp against anyone who can reach the port but was
// not given the bearer token: it demands "Authorization: Bearer <token>"
// when token is set. Both sides are hashed before the constant-time
// comparison, so neither the content nor the length of the token leaks
// through timing. Wrong tokens are bounded per client address (see
// authlimit): past the allowance, a request from that address is refused
// with 429 and Retry-After, its token unchecked, and the log says so once
// per allowance used up rather than once per guess.
func requireToken(token string, guesses *authlimit.Limiter, log *slog.Logger, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="fisk-mcp"`)
			http.Error(w, "Unauthorized: a bearer token is required", http.StatusUnauthorized)
			return
		}
		client := authlimit.Client(r.RemoteAddr)
		v := guesses.Verify(client, func() bool {
			sum := sha256.Sum256([]byte(got))
			return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
		})
		if v.Wait > 0 {
			secs := strconv.Itoa(int(v.Wait / time.Second))
			w.Header().Set("Retry-After", secs)
			http.Error(w, "Too Many Requests: too many wrong bearer tokens from this address; try again in "+secs+" s", http.StatusTooManyRequests)
			return
		}
		if !v.Right {
			if v.UsedUp {
				log.Warn("refusing bearer tokens from an address that sent too many wrong ones", "client", client, "allowance", guessAllowance)
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="fisk-mcp", error="invalid_token"`)
			http.Error(w, "Unauthorized: invalid bearer token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// guessAllowance says authlimit's default allowance, for the log.
var guessAllowance = fmt.Sprintf("%d wrong tokens, then one every %s", authlimit.DefaultBurst, authlimit.DefaultEvery)

// bearer extracts the token of an "Authorization: Bearer" header.
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
