package execrunner

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MinSecretLen is the shortest value a Redactor replaces, in characters.
// Shorter values ("yes", "1", "admin") occur by chance in ordinary output;
// replacing them would garble results and reveal which words are secret.
const MinSecretLen = 8

// Redacted replaces every occurrence of a secret.
const Redacted = "[redacted]"

// Redactor replaces known secret values in text: the values of scrubbed
// variables and the server's own token. It is immutable and safe for
// concurrent use; a nil *Redactor replaces nothing.
type Redactor struct {
	secrets []string // unique, at least MinSecretLen characters, longest first
}

// NewRedactor returns a Redactor for secrets. Values shorter than
// MinSecretLen characters are ignored. Secrets are matched longest first, and
// every byte covered by any occurrence is replaced, so a value that contains
// another, or overlaps it, is replaced whole and never half-revealed.
//
// A secret holding a quote, a backslash or a control character is also
// matched as JSON and Go quoting write it: error texts quote the value
// they reject, and the quoted form no longer contains the secret. For the
// same reason the start of a secret (MinSecretLen bytes or more) is
// replaced where an ellipsis follows it: a message cuts a long value it
// quotes.
func NewRedactor(secrets ...string) *Redactor {
	kept := make([]string, 0, len(secrets))
	for _, s := range secrets {
		if utf8.RuneCountInString(s) < MinSecretLen {
			continue
		}
		kept = append(kept, s)
		for _, q := range quotedForms(s) {
			if q != s {
				kept = append(kept, q)
			}
		}
	}
	slices.SortFunc(kept, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return &Redactor{secrets: slices.Compact(kept)}
}

// With returns a Redactor that hides r's secrets and secrets too: a
// call's own secrets (the values of its secret flags) on top of the
// server's. It returns r itself when secrets adds none.
func (r *Redactor) With(secrets ...string) *Redactor {
	if !slices.ContainsFunc(secrets, func(s string) bool { return utf8.RuneCountInString(s) >= MinSecretLen }) {
		return r
	}
	var all []string
	if r != nil {
		all = slices.Clone(r.secrets)
	}
	return NewRedactor(append(all, secrets...)...)
}

// quotedForms returns s as the inside of a JSON string and of a Go
// quoted string.
func quotedForms(s string) []string {
	j, _ := json.Marshal(s)
	return []string{string(j[1 : len(j)-1]), strconv.Quote(s)[1 : len(strconv.Quote(s))-1]}
}

// Redact returns s with every occurrence of every secret replaced by
// Redacted. Overlapping occurrences become one replacement; occurrences that
// only touch become two. s is returned as is when it contains no secret.
func (r *Redactor) Redact(s string) string {
	return replaceSpans(s, r.spans(s))
}

// DisplayCommandLine is the package's DisplayCommandLine with every secret
// hidden: each word is redacted, then the words are quoted and escaped, then
// the whole line is redacted again. Redacting the words first is what
// catches a secret holding a quote, a backslash or a non-printing character:
// quoting rewrites those, so the quoted form no longer contains the secret.
// Redacting the line catches a secret that only appears across words.
//
// Everything that shows a command to a person (the approval prompt, the
// log, Result.CommandLine) composes it here, so they agree byte for byte.
func (r *Redactor) DisplayCommandLine(path string, args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = r.Redact(a)
	}
	return r.Redact(DisplayCommandLine(r.Redact(path), words))
}

// span is the byte range [start, end) of text that secrets cover.
type span struct{ start, end int }

// spans returns the ranges of s covered by occurrences of secrets, in order.
// Occurrences that overlap are merged into one span; occurrences that only
// touch stay separate. No occurrence crosses the edge of a span, so cutting s
// outside every span's interior cuts no occurrence.
func (r *Redactor) spans(s string) []span {
	if r == nil || len(r.secrets) == 0 {
		return nil
	}
	var found []span
	for _, secret := range r.secrets {
		for from := 0; ; {
			i := strings.Index(s[from:], secret)
			if i < 0 {
				break
			}
			start := from + i
			found = append(found, span{start, start + len(secret)})
			from = start + 1
		}
	}
	found = append(found, r.cutSpans(s)...)
	if len(found) < 2 {
		return found
	}
	slices.SortFunc(found, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	merged := found[:1]
	for _, sp := range found[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
		} else {
			merged = append(merged, sp)
		}
	}
	return merged
}

// ellipsis marks where a message cut what it quotes.
const ellipsis = "…"

// cutSpans returns the ranges of s that hold the start of a secret, at
// least MinSecretLen bytes of it, right before an ellipsis (or before a
// quote and an ellipsis): a message cuts
// a long value it quotes (a validation error shows 60 characters of a
// rejected value, then "…"), and the cut form no longer contains the whole
// secret, though it reveals most of it.
func (r *Redactor) cutSpans(s string) []span {
	var found []span
	for from := 0; ; {
		i := strings.Index(s[from:], ellipsis)
		if i < 0 {
			return found
		}
		end := from + i
		if end > 0 && (s[end-1] == '"' || s[end-1] == '\'') {
			end-- // the cut is quoted, and the ellipsis follows the quote
		}
		for _, secret := range r.secrets {
			if k := cutPrefix(s[:end], secret); k > 0 {
				found = append(found, span{end - k, end})
			}
		}
		from = from + i + len(ellipsis)
	}
}

// cutPrefix is the length of the longest start of secret, at least
// MinSecretLen bytes and shorter than all of it, that text ends with; 0
// when there is none.
func cutPrefix(text, secret string) int {
	for k := min(len(secret)-1, len(text)); k >= MinSecretLen; k-- {
		if text[len(text)-1] == secret[k-1] && strings.HasSuffix(text, secret[:k]) {
			return k
		}
	}
	return 0
}

// replaceSpans returns s with each span replaced by Redacted. The spans must
// be sorted, disjoint and within s.
func replaceSpans(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	var out strings.Builder
	out.Grow(len(s))
	pos := 0
	for _, sp := range spans {
		out.WriteString(s[pos:sp.start])
		out.WriteString(Redacted)
		pos = sp.end
	}
	out.WriteString(s[pos:])
	return out.String()
}
