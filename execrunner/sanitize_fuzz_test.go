package execrunner

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// sanitizeTokens are what FuzzSanitizedCapture spells streams with: the
// pieces of escape sequences and strings, controls, bidirectional and C1
// characters, multi-byte characters, and the letters the secrets are made
// of, which also serve as escape sequences' final bytes.
var sanitizeTokens = []string{
	"\x1b", "[", "]", "P", "\\", "\x07", "\x18", "\r", "\n", "\t", "\x00", "\x7f",
	"1", ";", "m", "q", "é", "€", "\u202e", "\u2066", "\u061c", "\u009b", "\xff", "\u2028", "\u200b", "\U000e0041",
}

// sanitizeSecrets use the letters escape sequences end with, so that a
// sequence may seem to swallow a secret's first byte.
var sanitizeSecrets = []string{"mqmqmqmq-1", "qqqq;1;1m"}

// FuzzSanitizedCapture checks the output a Process reports, sanitised, for
// random streams of escape pieces, controls and secrets (whole, or split
// by an escape sequence) written in random chunks to a ring of random
// limit:
//
//   - it is valid UTF-8 and holds no ESC, no C0 control but newline and
//     tab, no DEL, no C1 control, no bidirectional or invisible formatting
//     character and no line or paragraph separator;
//   - it is no longer than the redacted rendering it was made from, plus
//     what redacting a reassembled secret adds;
//   - no secret appears in it, not even one whose pieces only an escape
//     sequence held apart;
//   - a truncated capture still shows its drop marker;
//   - sanitising it again changes nothing.
func FuzzSanitizedCapture(f *testing.F) {
	f.Add(uint16(40), []byte{0, 1, 12, 0, 2, 0xf0, 5, 0xf1, 0, 16, 0xf2}, []byte{3, 7})
	f.Add(uint16(7), []byte{0, 0xf0, 0, 0xf3, 14, 18, 19, 20, 21, 22}, []byte{1})
	f.Add(uint16(200), []byte{0, 2, 3, 4, 5, 6, 8, 0xf1}, []byte{})
	f.Fuzz(func(t *testing.T, limit uint16, data, sizes []byte) {
		stream := sanitizeStream(data)
		b := NewRingBuffer(int(limit%256) + 1)
		writeChunks(t, b, stream, sizes)
		r := NewRedactor(sanitizeSecrets...)
		p := &Process{ring: b, redactor: r}
		rendered := b.render(r)
		got := p.output()
		if !utf8.ValidString(got) {
			t.Fatalf("output %q is not valid UTF-8", got)
		}
		for _, c := range got {
			if c == 0x1b || c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || 0x80 <= c && c <= 0x9f || isBidi(c) || c == 0x061c || isInvisible(c) || c == 0x2028 || c == 0x2029 {
				t.Fatalf("output %q holds %U", got, c)
			}
		}
		if len(got) > len(rendered)+len(Redacted)*strings.Count(got, Redacted) {
			t.Fatalf("output of %d bytes from a rendering of %d", len(got), len(rendered))
		}
		for _, s := range sanitizeSecrets {
			if strings.Contains(got, s) {
				t.Fatalf("output %q shows the secret %q", got, s)
			}
		}
		if b.Truncated() && !strings.Contains(got, " bytes dropped ...]\n") {
			t.Fatalf("truncated output %q lost its marker", got)
		}
		if again := SanitizeOutput(got); again != got {
			t.Fatalf("sanitising %q again gave %q", got, again)
		}
	})
}

// sanitizeStream spells data: bytes from 0xf0 stand for a secret, whole or
// (odd ones) split in two by a colour reset; the others for tokens.
func sanitizeStream(data []byte) []byte {
	var out []byte
	for _, c := range data {
		if c < 0xf0 {
			out = append(out, sanitizeTokens[int(c)%len(sanitizeTokens)]...)
			continue
		}
		s := sanitizeSecrets[int(c>>1)%len(sanitizeSecrets)]
		if c&1 == 1 {
			s = s[:4] + "\x1b[0m" + s[4:]
		}
		out = append(out, s...)
	}
	return out
}
