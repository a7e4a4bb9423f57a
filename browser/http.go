package browser

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
)

// maxForm bounds the body of a POST: a decision is a few short fields.
const maxForm = 4 << 10

// secret returns n random bytes, URL-safe base64 without padding.
func secret(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics rather than returning short)
	return base64.RawURLEncoding.EncodeToString(b)
}

// equal compares two secrets in constant time.
func equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

type nonceKey struct{}

// secured sets the headers every page response carries and gives the
// handler a fresh CSP nonce for its inline style and script.
//
// connect-src 'self' lets the page hold its event stream and send its
// beacon, which default-src 'none' alone would block.
//
// Referrer-Policy is same-origin, not no-referrer: with no-referrer a
// browser sends "Origin: null" on a form POST (Fetch, "serializing a
// request origin"), which would make the Origin check refuse every
// decision. same-origin sends nothing to any other origin, and the page
// links nowhere else; the page's own address no longer holds the ticket.
func secured(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nonce := secret(16)
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'nonce-"+nonce+"'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Cache-Control", "no-store")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), nonceKey{}, nonce)))
	})
}

// nonceOf returns the CSP nonce secured gave the request.
func nonceOf(r *http.Request) string {
	n, _ := r.Context().Value(nonceKey{}).(string)
	return n
}

// sameOrigin reports whether a state-changing request comes from a page of
// origin: its Origin header must be exactly origin (a missing one is
// refused: every browser sends it on a POST) and Sec-Fetch-Site, when
// present, same-origin.
func sameOrigin(r *http.Request, origin string) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" {
		return false
	}
	o := r.Header.Values("Origin")
	return len(o) == 1 && o[0] == origin
}

// form parses a bounded urlencoded POST body.
func form(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	return r.ParseForm() == nil
}

// decisionOf reads a posted decision: the value of the button pressed,
// approve or deny; anything else is none.
func decisionOf(r *http.Request) (Outcome, bool) {
	switch r.PostForm.Get("decision") {
	case "approve":
		return Approved, true
	case "deny":
		return Denied, true
	}
	return "", false
}
