package execrunner

import (
	"strings"
	"unicode/utf8"
)

// SanitizeOutput makes captured output safe to hand to a model and to show
// in a client's interface, where a terminal's control sequences are noise
// to the one and an injection risk in the other: a colour that hides text,
// an OSC 8 link whose target differs from its text, an OSC 52 write to the
// clipboard, a bidirectional override that reorders what a person reads.
// Newline and tab pass; everything else that is not printable goes:
//
//   - escape sequences are removed whole: CSI (ESC [ ... final byte), the
//     strings OSC, DCS, SOS, PM and APC (ESC ] P X ^ _ ... up to BEL, ESC \,
//     CAN or SUB), and two-byte and intermediate escapes (ESC 7, ESC ( B).
//     A string with no terminator ends at the next newline, which is kept,
//     so an unterminated one cannot swallow the rest of the output;
//   - a carriage return becomes a newline, and CRLF one newline, so a
//     progress bar that redraws its line reads as lines;
//   - every other C0 control (NUL, BEL, BS, ...), DEL and the C1 controls
//     U+0080 to U+009F are removed;
//   - the bidirectional marks, embeddings, overrides and isolates (U+200E,
//     U+200F, U+202A to U+202E, U+2066 to U+2069) become U+FFFD, visibly
//     something that is not shown; U+061C, two bytes long, is removed;
//   - the line and paragraph separators (U+2028, U+2029) become newlines,
//     which is how some interfaces show them anyway;
//   - the invisible formatting characters (zero-width space, tag
//     characters and the like; see isInvisible) are removed.
//
// The result is never longer than s, so the capture's bound holds, and it
// is valid UTF-8: invalid bytes are removed, and nothing else is cut inside
// a character. Sanitising only removes or replaces bytes, so it shows no
// byte that redacting s hid; Process runs a Redactor over the result once
// more, for a secret whose pieces only escape sequences held apart.
func SanitizeOutput(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			i = skipEscape(s, i)
			continue
		case c == '\n' || c == '\t':
			b.WriteByte(c)
		case c == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				b.WriteByte('\n')
			}
		case c < 0x20 || c == 0x7f:
		case c < utf8.RuneSelf:
			b.WriteByte(c)
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1, 0x80 <= r && r <= 0x9f, r == 0x061c, isInvisible(r):
			case r == 0x2028 || r == 0x2029:
				b.WriteByte('\n')
			case isBidi(r):
				b.WriteRune(utf8.RuneError)
			default:
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		i++
	}
	return b.String()
}

// isClean reports whether s holds nothing SanitizeOutput changes, the
// common case, checked without building a copy.
func isClean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || 0x80 <= r && r <= 0x9f || r == 0x061c || isBidi(r) || isInvisible(r) || r == 0x2028 || r == 0x2029 {
			return false
		}
		i += size
	}
	return true
}

// isBidi reports the bidirectional formatting characters that reorder
// displayed text (U+061C aside, handled by its size).
func isBidi(r rune) bool {
	return r == 0x200e || r == 0x200f || 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069
}

// isInvisible reports the formatting characters that show nothing and
// mean nothing in a command's output, but can hide text from the person
// while the model reads it: the zero-width space and no-break space
// (U+200B, U+FEFF), the word joiner and invisible operators (U+2060 to
// U+2064), the deprecated format controls (U+206A to U+206F), the
// Mongolian vowel separator (U+180E), the interlinear annotation marks
// (U+FFF9 to U+FFFB) and the tag characters (U+E0000 to U+E007F), which
// spell ASCII no one sees. The zero-width joiner and non-joiner stay:
// scripts and emoji need them.
func isInvisible(r rune) bool {
	return r == 0x200b || r == 0xfeff || r == 0x180e || 0x2060 <= r && r <= 0x2064 || 0x206a <= r && r <= 0x206f ||
		0xfff9 <= r && r <= 0xfffb || 0xe0000 <= r && r <= 0xe007f
}

// skipEscape returns the index after the escape sequence that starts with
// the ESC at s[i]. A byte that cannot continue the sequence ends it and
// is not consumed; a lone ESC is skipped alone.
func skipEscape(s string, i int) int {
	i++
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		for i++; i < len(s); i++ {
			switch c := s[i]; {
			case 0x20 <= c && c <= 0x3f: // parameter and intermediate bytes
			case 0x40 <= c && c <= 0x7e: // final byte
				return i + 1
			default:
				return i
			}
		}
		return i
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		for i++; i < len(s); i++ {
			switch s[i] {
			case 0x07, 0x18, 0x1a: // BEL, CAN, SUB
				return i + 1
			case 0x1b:
				if i+1 < len(s) && s[i+1] == '\\' {
					return i + 2
				}
				return i
			case '\n':
				return i
			}
		}
		return i
	case 0x20 <= c && c <= 0x2f:
		for ; i < len(s) && 0x20 <= s[i] && s[i] <= 0x2f; i++ {
		}
		if i < len(s) && 0x30 <= s[i] && s[i] <= 0x7e {
			return i + 1
		}
		return i
	case 0x30 <= c && c <= 0x7e:
		return i + 1
	}
	return i
}

// output is the run's captured output as Result.Output reports it:
// rendered and redacted, then, unless the command asked for raw output,
// sanitised and redacted again.
func (p *Process) output() string {
	out := p.ring.render(p.redactor)
	if p.rawOutput {
		return out
	}
	return p.redactor.Redact(SanitizeOutput(out))
}
