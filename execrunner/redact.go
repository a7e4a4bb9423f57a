package execrunner

import (
	"cmp"
	"slices"
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
func NewRedactor(secrets ...string) *Redactor {
	kept := make([]string, 0, len(secrets))
	for _, s := range secrets {
		if utf8.RuneCountInString(s) >= MinSecretLen {
			kept = append(kept, s)
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

// Redact returns s with every occurrence of every secret replaced by
// Redacted. Overlapping or adjacent-overlapping occurrences become one
// replacement. s is returned as is when it contains no secret.
func (r *Redactor) Redact(s string) string {
	if r == nil || len(r.secrets) == 0 {
		return s
	}
	var spans [][2]int
	for _, secret := range r.secrets {
		for from := 0; ; {
			i := strings.Index(s[from:], secret)
			if i < 0 {
				break
			}
			start := from + i
			spans = append(spans, [2]int{start, start + len(secret)})
			from = start + 1
		}
	}
	if spans == nil {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	var out strings.Builder
	out.Grow(len(s))
	pos := 0
	for i := 0; i < len(spans); {
		start, end := spans[i][0], spans[i][1]
		for i++; i < len(spans) && spans[i][0] < end; i++ {
			end = max(end, spans[i][1])
		}
		out.WriteString(s[pos:start])
		out.WriteString(Redacted)
		pos = end
	}
	out.WriteString(s[pos:])
	return out.String()
}

// prefixFragment returns the length of the longest suffix of b that is the
// beginning (but not the whole) of a secret: what a cut after b would leave
// of a secret that continues in the dropped bytes.
func (r *Redactor) prefixFragment(b []byte) int {
	if r == nil {
		return 0
	}
	text, longest := string(b), 0
	for _, secret := range r.secrets {
		for n := min(len(secret)-1, len(text)); n > longest; n-- {
			if strings.HasSuffix(text, secret[:n]) {
				longest = n
				break
			}
		}
	}
	return longest
}

// suffixFragment returns the length of the longest prefix of b that is the
// end (but not the whole) of a secret: what a cut before b would leave of a
// secret that began in the dropped bytes.
func (r *Redactor) suffixFragment(b []byte) int {
	if r == nil {
		return 0
	}
	text, longest := string(b), 0
	for _, secret := range r.secrets {
		for n := min(len(secret)-1, len(text)); n > longest; n-- {
			if strings.HasPrefix(text, secret[len(secret)-n:]) {
				longest = n
				break
			}
		}
	}
	return longest
}
