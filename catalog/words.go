package catalog

import (
	"unicode"
	"unicode/utf8"
)

// splitWords calls emit with every word of s, lowercased, in a buffer of sc
// that is reused: emit must not keep it. capitals says the word was written
// in capital letters only (ORDERS, NATS). A word is a run of letters and digits.
// Runs joined by single hyphens ("round-trip", "step-down") are also
// emitted joined ("roundtrip"), so that "step down", "step-down" and
// "stepdown" meet. With camel set, a run is split at case changes
// ("listUsers" gives "list" and "users", "JSONFile" gives "json" and
// "file"); that suits identifiers, not prose, where a camel-cased word is
// usually a product name (JetStream) that must stay one word.
//
// With numbered set, hyphenated runs whose last run is a number
// ("sensor-42", "gateway-3", "us-east-1") are not emitted: in a
// request they are the name of one thing the user has, not words of
// what it is (it may still say that: "the sensor sensor-42").
func splitWords(s string, camel, compounds, numbered bool, sc *scratch, emit func(w []byte, capitals bool)) {
	buf, joined := &sc.word, sc.joined[:0]
	runs := 0
	// skip is whether the words up to the next separator that is not a
	// single hyphen are a numbered name, and fresh whether the next run
	// starts such a stretch.
	skip, fresh := false, true
	for i := 0; i < len(s); {
		start := i
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			i += n
		}
		if i > start && fresh {
			skip, fresh = numbered && numberedName(s[start:]), false
		}
		if i > start && !skip {
			w := s[start:i]
			if camel {
				splitCamel(w, buf, emit)
			} else {
				*buf = lower((*buf)[:0], w)
				emit(*buf, capitals(w))
			}
			if compounds {
				joined = lower(joined, w)
				runs++
			}
		}
		if i >= len(s) {
			break
		}
		// A single hyphen between two runs continues a compound; anything
		// else ends it.
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == '-' && i < len(s) && isWordStart(s[i:]) {
			if compounds {
				continue
			}
		} else {
			fresh = true
		}
		if !compounds {
			continue
		}
		if runs > 1 {
			emit(joined, false)
		}
		joined, runs = joined[:0], 0
	}
	if runs > 1 {
		emit(joined, false)
	}
	sc.joined = joined[:0]
}

// numberedName reports whether s starts with two or more runs of letters
// and digits joined by single hyphens, the last of them digits only.
func numberedName(s string) bool {
	runs, digits := 0, false
	for i := 0; i < len(s); {
		start := i
		digits = true
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			digits = digits && r >= '0' && r <= '9'
			i += n
		}
		if i == start {
			return false
		}
		runs++
		if i >= len(s) || s[i] != '-' || !isWordStart(s[i+1:]) {
			break
		}
		i++
	}
	return runs > 1 && digits
}

// scratch holds the buffers of splitWords, so that analysing a query
// allocates nothing once they have grown.
type scratch struct {
	word, joined []byte
}

func isWordStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// splitCamel emits the lowercased parts of w split at case changes: before
// an upper-case letter that follows a lower-case one or a digit, and before
// the last upper-case letter of a run that a lower-case letter follows.
func splitCamel(w string, buf *[]byte, emit func([]byte, bool)) {
	start := 0
	var prev rune
	for i, r := range w {
		if i > start && unicode.IsUpper(r) {
			next, _ := utf8.DecodeRuneInString(w[i+utf8.RuneLen(r):])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) ||
				unicode.IsUpper(prev) && unicode.IsLower(next) {
				*buf = lower((*buf)[:0], w[start:i])
				emit(*buf, capitals(w[start:i]))
				start = i
			}
		}
		prev = r
	}
	*buf = lower((*buf)[:0], w[start:])
	emit(*buf, capitals(w[start:]))
}

// capitals reports whether w has a letter and no lower-case one.
func capitals(w string) bool {
	letter := false
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		letter = letter || unicode.IsLetter(r)
	}
	return letter
}

func lower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			for _, r := range s[i:] {
				dst = utf8.AppendRune(dst, unicode.ToLower(r))
			}
			return dst
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
