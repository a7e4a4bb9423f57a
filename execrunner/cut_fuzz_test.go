package execrunner

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRedactedCapture checks the redacted rendering of random streams full
// of secrets against the whole stream redacted at once, full:
//
//   - without a cut the rendering is full;
//   - with one, the head shown is a prefix of full and the tail shown a
//     suffix of it, each ending (starting) at a whole character or a whole
//     Redacted. Since the stream's alphabet shares no character with
//     Redacted or the marker, every character shown is then the stream's
//     own character at its own place, and no character shown lies in any
//     occurrence of any secret in the whole stream: a secret is shown
//     neither whole nor in part, however short the part. Bytes that merely
//     look like a secret's fragment, outside any occurrence, may be shown;
//   - the marker's count is the number of bytes between the head shown and
//     the tail shown (exact, up to where inside a Redacted run the cut
//     fell), and each cut drops at most a secret's length plus two bytes
//     more than the raw cut.
//
// Secrets and streams are drawn from a few characters, one to three bytes
// long, so fragments of secrets are everywhere, and the secrets include a
// first character equal to the last, a pair where one ends with the
// other's start, and a periodic secret that overlaps itself.
func FuzzRedactedCapture(f *testing.F) {
	// The reported shapes: a secret whose ends agree exactly at a cut.
	f.Add(uint16(63), []byte{0x01}, append(append(repeatByte(1, 21), 0xe0), repeatByte(2, 100)...), []byte{0})
	f.Add(uint16(63), []byte{0x01}, append(append(repeatByte(1, 100), 0xe0), repeatByte(2, 21)...), []byte{0})
	// The overlapping pair, back to back across both cuts.
	f.Add(uint16(39), []byte{0x06}, []byte{0, 1, 2, 0xe1, 0xe2, 0xe1, 0xe2, 3, 4, 0xe1, 0xe2, 0xe1, 0xe2, 5}, []byte{3, 1})
	f.Add(uint16(23), []byte{0x0f, 3, 0, 0, 3}, []byte{0xe0, 0xe1, 0xf2, 0xfb, 0xe4, 9, 0xe3, 0xe4, 0xea, 0xe5}, []byte{1, 2, 7})
	f.Add(uint16(300), []byte{0x08, 0xff, 5, 5, 5, 5, 5, 5, 5, 5}, repeatByte(0xe0, 80), []byte{200, 13})
	f.Fuzz(func(t *testing.T, limit uint16, spec, data, sizes []byte) {
		secrets := fuzzSecrets(spec)
		checkRedactedCapture(t, int(limit%512)+1, fuzzStream(data, secrets), sizes, secrets)
	})
}

func repeatByte(c byte, n int) []byte { return bytes.Repeat([]byte{c}, n) }

// fuzzAlphabet shares no character with Redacted or the drop marker.
var fuzzAlphabet = []string{"A", "B", "C", "K", "é", "€"}

// fuzzShapes are the secret shapes that defeated trimming before matching.
var fuzzShapes = []string{
	"KA€BCéAK",  // its first character is its last
	"CCKAéBCA",  // ends with the start of the next
	"éBCAK€AB",  // starts with the end of the previous
	"€A€A€A€A€", // periodic: overlaps itself
}

// fuzzSecrets picks shapes by the bits of spec[0] (all of them when spec
// is empty) and adds up to two secrets spelled by the rest of spec, split
// at 0xff, each repeated up to MinSecretLen characters.
func fuzzSecrets(spec []byte) []string {
	if len(spec) == 0 {
		return fuzzShapes
	}
	var secrets []string
	for i, s := range fuzzShapes {
		if spec[0]>>i&1 == 1 {
			secrets = append(secrets, s)
		}
	}
	for i, part := range strings.SplitN(string(spec[1:]), "\xff", 3) {
		if i == 2 || part == "" {
			break
		}
		var word []string
		for _, c := range []byte(part[:min(len(part), 24)]) {
			word = append(word, fuzzAlphabet[int(c)%len(fuzzAlphabet)])
		}
		for len(word) < MinSecretLen {
			word = append(word, word...)
		}
		secrets = append(secrets, strings.Join(word, ""))
	}
	return secrets
}

// fuzzStream spells data: bytes from 0xe0 stand for a secret whole (or,
// for some, its first or second half, which is no occurrence), the others
// for characters of fuzzAlphabet.
func fuzzStream(data []byte, secrets []string) []byte {
	var out []byte
	for _, c := range data {
		if c < 0xe0 || len(secrets) == 0 {
			out = append(out, fuzzAlphabet[int(c)%len(fuzzAlphabet)]...)
			continue
		}
		k := int(c - 0xe0)
		s := []rune(secrets[k%len(secrets)])
		switch k / 8 % 4 {
		case 2:
			s = s[:len(s)/2]
		case 3:
			s = s[len(s)/2:]
		}
		out = append(out, string(s)...)
	}
	return out
}

// checkRedactedCapture writes stream to a ring in chunks sized by sizes and
// checks its rendering as FuzzRedactedCapture describes.
func checkRedactedCapture(t *testing.T, limit int, stream, sizes []byte, secrets []string) {
	t.Helper()
	b := NewRingBuffer(limit)
	writeChunks(t, b, stream, sizes)
	r := NewRedactor(secrets...)
	got := b.render(r)
	full, tokens := redactReference(string(stream), secrets)
	if rr := r.Redact(string(stream)); rr != full {
		t.Fatalf("Redact = %q, reference %q", rr, full)
	}
	for _, s := range secrets {
		if strings.Contains(got, s) {
			t.Fatalf("secret %q shown: %q", s, got)
		}
	}
	total, headLimit, tailLimit := len(stream), limit-limit/2, limit/2
	if total <= limit {
		if got != full {
			t.Fatalf("render = %q, want %q", got, full)
		}
		return
	}
	head, dropped, tail := splitAtMarker(t, got)
	if !strings.HasPrefix(full, head) || !strings.HasSuffix(full, tail) {
		t.Fatalf("head %q or tail %q shows what the redacted stream %q does not", head, tail, full)
	}
	cMin, cMax, ok := headEnd(tokens, len(head))
	if !ok {
		t.Fatalf("head %q ends inside a character or a Redacted of %q", head, full)
	}
	dMin, dMax, ok := tailStart(tokens, len(full)-len(tail), total)
	if !ok {
		t.Fatalf("tail %q starts inside a character or a Redacted of %q", tail, full)
	}
	if dropped < int64(dMin-cMax) || dropped > int64(dMax-cMin) {
		t.Fatalf("marker counts %d bytes; head shown ends at %d..%d and tail starts at %d..%d of %q", dropped, cMin, cMax, dMin, dMax, stream)
	}
	slack := 2
	for _, s := range secrets {
		slack = max(slack, len(s)+2)
	}
	if cMax < headLimit-slack || dMin > total-tailLimit+slack {
		t.Fatalf("cuts at %d..%d and %d..%d, raw cuts at %d and %d, allowed slack %d: %q -> %q",
			cMin, cMax, dMin, dMax, headLimit, total-tailLimit, slack, stream, got)
	}
}

// writeChunks writes data to b in chunks sized by sizes, then the rest.
func writeChunks(t *testing.T, b *RingBuffer, data, sizes []byte) {
	t.Helper()
	for i, rest := 0, data; len(rest) > 0; i++ {
		n := len(rest)
		if i < 4*len(sizes) { // then one last write of the rest
			s := int(sizes[i%len(sizes)])
			n = min(n, s*(1+s%8))
		}
		if w, err := b.Write(rest[:n]); w != n || err != nil {
			t.Fatalf("Write = %d, %v", w, err)
		}
		rest = rest[n:]
	}
}

// splitAtMarker splits a truncated rendering into head, count and tail.
func splitAtMarker(t *testing.T, s string) (head string, dropped int64, tail string) {
	t.Helper()
	const open, closing = "\n[... ", " bytes dropped ...]\n"
	i := strings.Index(s, open)
	j := strings.Index(s, closing)
	if i < 0 || j < i {
		t.Fatalf("no marker in %q", s)
	}
	n, err := strconv.ParseInt(s[i+len(open):j], 10, 64)
	if err != nil {
		t.Fatalf("marker count in %q: %v", s, err)
	}
	return s[:i], n, s[j+len(closing):]
}

// refToken is one character, or one Redacted, of the reference rendering:
// its end in that rendering and the stream bytes [from, to) it stands for.
type refToken struct {
	outEnd, from, to int
	redacted         bool
}

// redactReference redacts s by brute force, independently of Redactor: it
// marks every occurrence of every secret, merges occurrences that overlap
// and replaces each merged run.
func redactReference(s string, secrets []string) (string, []refToken) {
	runEnd := make([]int, len(s)) // > i where an occurrence starts at i
	for i := range s {
		for _, sec := range secrets {
			if utf8.RuneCountInString(sec) >= MinSecretLen && strings.HasPrefix(s[i:], sec) {
				runEnd[i] = max(runEnd[i], i+len(sec))
			}
		}
	}
	var out strings.Builder
	var tokens []refToken
	for i := 0; i < len(s); {
		tok := refToken{from: i}
		if end := runEnd[i]; end > i {
			for j := i + 1; j < end; j++ { // extend over overlapping occurrences
				end = max(end, runEnd[j])
			}
			out.WriteString(Redacted)
			tok.to, tok.redacted = end, true
		} else {
			_, size := utf8.DecodeRuneInString(s[i:])
			out.WriteString(s[i : i+size])
			tok.to = i + size
		}
		tok.outEnd = out.Len()
		tokens = append(tokens, tok)
		i = tok.to
	}
	return out.String(), tokens
}

// headEnd returns where in the stream a head shown as the first n bytes of
// the reference rendering may end: exactly after a character, or anywhere
// inside a Redacted run past its first byte. ok is false when n falls
// inside a token.
func headEnd(tokens []refToken, n int) (lo, hi int, ok bool) {
	if n == 0 {
		return 0, 0, true
	}
	for _, tok := range tokens {
		if tok.outEnd == n {
			if tok.redacted {
				return tok.from + 1, tok.to, true
			}
			return tok.to, tok.to, true
		}
	}
	return 0, 0, false
}

// tailStart is headEnd's mirror image for a tail shown from byte n of the
// reference rendering on.
func tailStart(tokens []refToken, n, total int) (lo, hi int, ok bool) {
	start := 0
	for _, tok := range tokens {
		if start == n {
			if tok.redacted {
				return tok.from, tok.to - 1, true
			}
			return tok.from, tok.from, true
		}
		start = tok.outEnd
	}
	if start == n {
		return total, total, true
	}
	return 0, 0, false
}
