package catalog

import (
	"unicode"
	"unicode/utf8"
)

// splitWords calls emit with every word of s, lowercased, in a buffer of sc
// that is reused: emit must not keep it. A word is a run of letters and
// digits.
func splitWords(s string, sc *scratch, emit func(w []byte)) {
	buf := &sc.word
	for i := 0; i < len(s); {
		start := i
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			i += n
		}
		if i > start {
			*buf = lower((*buf)[:0], s[start:i])
			emit(*buf)
		}
		if i < len(s) {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
		}
	}
}

// scratch holds the buffers of splitWords, so that analysing a query
// allocates nothing once they have grown.
type scratch struct {
	word []byte
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
