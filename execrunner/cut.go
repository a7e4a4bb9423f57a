package execrunner

import (
	"strings"
	"unicode/utf8"
)

// Where the cuts fall
//
// A truncated capture shows the head, a marker and the tail; the bytes
// between them are gone. The rule is that no byte of any secret occurrence
// in the whole stream is ever shown: an occurrence is either replaced by
// Redacted or not shown at all, however it lies across the cuts.
//
// An occurrence that straddles a cut cannot be matched whole, since only its
// first bytes end the head (or its last bytes start the tail). So, for the
// head (the tail is its mirror image):
//
//  1. Complete occurrences in the head are found first, on every kept byte.
//     Trimming first could cut into a complete occurrence whose start looks
//     like its own end (or another secret's start) and leave the rest of it
//     unmatched.
//  2. The head then ends before its longest suffix that is a proper prefix
//     of some secret: every occurrence running past the head's end starts
//     within that suffix, so none of its bytes remain.
//  3. A cut that lands inside a redacted span moves to the span's end: the
//     span shows as Redacted, the bytes after it are dropped. A cut never
//     splits a character, nor a span.
//
// Step 2 cannot tell a secret's first bytes from innocent bytes that look
// like them, so it may drop up to a secret's length less one byte of
// innocent output at a cut (usually none: the head must end with the first
// character of a secret). Everything dropped at a cut is counted in the
// marker.

// cutHead returns the head as shown (complete occurrences redacted, no
// secret fragment or partial character at its end) and how many of its
// bytes are cut off.
func (r *Redactor) cutHead(head []byte) (shown string, cut int) {
	x := string(head)
	x = x[:runeSafeEnd(x)]
	spans := r.spans(x)
	c := len(x) - r.openingLen(x)
	if _, inside := spanAround(spans, c); !inside && c < len(x) {
		c = runeSafeEnd(x[:c]) // moves only where a secret or the output is not UTF-8
	}
	if sp, inside := spanAround(spans, c); inside {
		c = sp.end
	}
	n := 0
	for n < len(spans) && spans[n].end <= c {
		n++
	}
	return replaceSpans(x[:c], spans[:n]), len(head) - c
}

// cutTail is cutHead's mirror image: it returns the tail as shown and how
// many of its first bytes are cut off.
func (r *Redactor) cutTail(tail []byte) (shown string, cut int) {
	y := string(tail)
	t := runeSafeStart(y)
	y = y[t:]
	spans := r.spans(y)
	d := r.closingLen(y)
	if _, inside := spanAround(spans, d); !inside && d > 0 {
		d += runeSafeStart(y[d:]) // moves only where a secret or the output is not UTF-8
	}
	if sp, inside := spanAround(spans, d); inside {
		d = sp.start
	}
	kept := make([]span, 0, len(spans))
	for _, sp := range spans {
		if sp.start >= d {
			kept = append(kept, span{sp.start - d, sp.end - d})
		}
	}
	return replaceSpans(y[d:], kept), t + d
}

// spanAround returns the span that i falls strictly inside, if any.
func spanAround(spans []span, i int) (span, bool) {
	for _, sp := range spans {
		if sp.start < i && i < sp.end {
			return sp, true
		}
	}
	return span{}, false
}

// openingLen returns the length of the longest suffix of s that is a proper
// prefix of some secret: what a cut after s could leave of an occurrence
// that continues past the cut.
func (r *Redactor) openingLen(s string) int {
	if r == nil {
		return 0
	}
	longest := 0
	for _, secret := range r.secrets {
		// Earliest start first: the first match is this secret's longest.
		for i := max(0, len(s)-len(secret)+1); i < len(s)-longest; i++ {
			if s[i] == secret[0] && strings.HasPrefix(secret, s[i:]) {
				longest = len(s) - i
				break
			}
		}
	}
	return longest
}

// closingLen returns the length of the longest prefix of s that is a proper
// suffix of some secret: what a cut before s could leave of an occurrence
// that began before the cut.
func (r *Redactor) closingLen(s string) int {
	if r == nil {
		return 0
	}
	longest := 0
	for _, secret := range r.secrets {
		last := secret[len(secret)-1]
		for n := min(len(secret)-1, len(s)); n > longest; n-- {
			if s[n-1] == last && strings.HasSuffix(secret, s[:n]) {
				longest = n
				break
			}
		}
	}
	return longest
}

// runeSafeEnd returns where to cut s so it does not end inside a UTF-8
// character: before a trailing lead byte whose character is incomplete.
func runeSafeEnd(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax+1; i-- {
		c := s[i]
		if c < utf8.RuneSelf {
			return len(s)
		}
		if utf8.RuneStart(c) {
			if utf8.FullRuneInString(s[i:]) {
				return len(s)
			}
			return i
		}
	}
	return len(s)
}

// runeSafeStart returns where to cut s so it does not start inside a UTF-8
// character: after at most three leading continuation bytes, which belong
// to a character whose first byte was dropped.
func runeSafeStart(s string) int {
	i := 0
	for i < len(s) && i < utf8.UTFMax-1 && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}
