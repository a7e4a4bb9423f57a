package execrunner

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRingBufferKeepsHeadAndTailAndCountsTheMiddle(t *testing.T) {
	tests := []struct {
		name      string
		limit     int
		writes    []string
		want      string
		truncated bool
	}{
		{"nothing written", 8, nil, "", false},
		{"fits exactly", 8, []string{"abcd", "efgh"}, "abcdefgh", false},
		{"one write over the limit", 8, []string{"abcdefghijkl"}, "abcd" + dropMarker(4) + "ijkl", true},
		{"many small writes wrap the tail", 8, []string{"ab", "cd", "ef", "gh", "ij", "kl", "mn"}, "abcd" + dropMarker(6) + "klmn", true},
		{"a write longer than the tail replaces it", 8, []string{"abcdef", strings.Repeat("x", 20) + "WXYZ"}, "abcd" + dropMarker(22) + "WXYZ", true},
		{"odd limit gives the head the extra byte", 5, []string{"abcdefg"}, "abc" + dropMarker(2) + "fg", true},
		{"limit of one keeps the first byte", 1, []string{"abc"}, "a" + dropMarker(2), true},
		{"empty writes change nothing", 4, []string{"", "ab", "", "cd", ""}, "abcd", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewRingBuffer(tt.limit)
			var total int64
			for _, w := range tt.writes {
				n, err := b.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				total += int64(len(w))
			}
			if got := b.String(); got != tt.want {
				t.Fatalf("String() = %q, want %q", got, tt.want)
			}
			if b.Truncated() != tt.truncated || b.Total() != total {
				t.Fatalf("Truncated=%v Total=%d, want %v %d", b.Truncated(), b.Total(), tt.truncated, total)
			}
		})
	}
}

func TestRingBufferCutsNeverSplitUTF8(t *testing.T) {
	tests := []struct {
		name  string
		limit int
		input string
		want  string
	}{
		// Head of 4 ends inside "€" (3 bytes at offsets 2..4): cut before it.
		// Tail of 4 starts inside "😀" (4 bytes): skip its continuation bytes.
		{"head and tail cut inside characters", 8, "ab€cdefgh😀z", "ab" + dropMarker(13) + "z"},
		{"tail starting inside a character keeps what follows", 8, "abcdef€xyz", "abcd" + dropMarker(5) + "xyz"},
		{"cuts on character boundaries keep everything", 8, "aéb€€€xyé", "aéb" + dropMarker(9) + "xyé"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewRingBuffer(tt.limit)
			_, _ = b.Write([]byte(tt.input))
			if got := b.String(); got != tt.want {
				t.Fatalf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRingBufferMakesInvalidUTF8Valid(t *testing.T) {
	b := NewRingBuffer(64)
	_, _ = b.Write([]byte("ok \xff\xfe bad \xe2\x82 end"))
	got := b.String()
	if !utf8.ValidString(got) || got != "ok \uFFFD bad \uFFFD end" {
		t.Fatalf("String() = %q", got)
	}
}

func TestRingBufferDropsSecretFragmentsAtTheCuts(t *testing.T) {
	const secret = "SECRET-VALUE-123"
	r := NewRedactor(secret)
	tests := []struct {
		name  string
		limit int
		input string
		want  string
	}{
		{"secret straddles the head cut", 16, "head: SECRET-VALUE-123 ........ tail", "head: " + dropMarker(22) + "... tail"},
		{"secret straddles the tail cut", 16, "abcdefgh........SECRET-VALUE-123xy", "abcdefgh" + dropMarker(24) + "xy"},
		{"whole secret in the tail is redacted", 40, strings.Repeat(".", 30) + "key=" + secret, strings.Repeat(".", 20) + dropMarker(10) + "key=" + Redacted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewRingBuffer(tt.limit)
			_, _ = b.Write([]byte(tt.input))
			if got := b.render(r); got != tt.want {
				t.Fatalf("render = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewRingBufferDefaultsTheLimit(t *testing.T) {
	b := NewRingBuffer(0)
	_, _ = b.Write(make([]byte, DefaultCaptureLimit))
	if b.Truncated() {
		t.Fatal("DefaultCaptureLimit bytes were truncated")
	}
	_, _ = b.Write([]byte{'x'})
	if !b.Truncated() {
		t.Fatal("one byte over DefaultCaptureLimit was kept")
	}
}

// FuzzRingBuffer compares the ring with a reference that keeps every byte,
// for random write sequences and limits: the raw head and tail, the counts,
// and the rendering, on raw bytes, on dense multi-byte UTF-8 and with a
// secret that must never leak, whole or in part.
func FuzzRingBuffer(f *testing.F) {
	f.Add(uint16(16), []byte("hello, world: \xe2\x82\xac and \xf0\x9f\x98\x80 and more"), []byte{3, 5, 0, 200})
	f.Add(uint16(1), []byte("ab"), []byte{1})
	f.Add(uint16(7), bytes.Repeat([]byte{0xff, 'a', 0xc3}, 50), []byte{0, 0, 9})
	f.Add(uint16(4095), bytes.Repeat([]byte("0123456789"), 900), []byte{255, 17})
	f.Fuzz(func(t *testing.T, limit uint16, data []byte, sizes []byte) {
		lim := int(limit%4096) + 1
		checkRing(t, lim, data, sizes, nil)
		checkRing(t, lim, denseUTF8(data), sizes, nil)
		checkRing(t, lim, withSecrets(data), sizes, NewRedactor(fuzzSecret))
	})
}

// checkRing writes data in chunks sized by sizes and checks the ring
// against the reference: all of data.
func checkRing(t *testing.T, limit int, data, sizes []byte, r *Redactor) {
	t.Helper()
	b := NewRingBuffer(limit)
	writeChunks(t, b, data, sizes)
	total := len(data)
	headLimit, tailLimit := limit-limit/2, limit/2
	if b.Total() != int64(total) || b.Truncated() != (total > limit) {
		t.Fatalf("Total=%d Truncated=%v for %d bytes, limit %d", b.Total(), b.Truncated(), total, limit)
	}
	if cap(b.head) > headLimit || cap(b.tail) > tailLimit {
		t.Fatalf("capacities %d and %d for a head of %d and a tail of %d", cap(b.head), cap(b.tail), headLimit, tailLimit)
	}
	head, tail, dropped := b.snapshot()
	got := b.render(r)
	if !utf8.ValidString(got) {
		t.Fatalf("invalid UTF-8: %q", got)
	}
	if total <= limit {
		if !bytes.Equal(append(head, tail...), data) || dropped != 0 {
			t.Fatalf("kept %q+%q, dropped %d; want all of %q", head, tail, dropped, data)
		}
		if want := validUTF8(r.Redact(string(data))); got != want {
			t.Fatalf("render = %q, want %q", got, want)
		}
	} else {
		if !bytes.Equal(head, data[:headLimit]) || !bytes.Equal(tail, data[total-tailLimit:]) {
			t.Fatalf("head %q tail %q; want %q and %q", head, tail, data[:headLimit], data[total-tailLimit:])
		}
		if dropped != int64(total-headLimit-tailLimit) {
			t.Fatalf("dropped %d, want %d", dropped, total-headLimit-tailLimit)
		}
		if r == nil {
			checkCuts(t, got, data, headLimit, total-tailLimit)
		}
	}
	if r != nil && strings.ContainsAny(got, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		t.Fatalf("secret leaked (whole or in part): %q", got)
	}
}

// checkCuts checks the rendering of a truncated stream: the head cut moves
// back at most three bytes and the tail cut forward at most three, the
// marker counts everything between them, and for valid UTF-8 the cuts land
// exactly on the character boundaries next to the raw cut points.
func checkCuts(t *testing.T, got string, data []byte, h0, t0 int) {
	t.Helper()
	render := func(h, tl int) string {
		return validUTF8(string(data[:h])) + dropMarker(int64(tl-h)) + validUTF8(string(data[tl:]))
	}
	if utf8.Valid(data) {
		h, tl := h0, t0
		for h > 0 && !utf8.RuneStart(data[h]) {
			h--
		}
		for tl < len(data) && !utf8.RuneStart(data[tl]) {
			tl++
		}
		if want := render(h, tl); got != want {
			t.Fatalf("render = %q, want %q", got, want)
		}
		return
	}
	for h := h0; h >= max(0, h0-3); h-- {
		for tl := t0; tl <= min(len(data), t0+3); tl++ {
			if got == render(h, tl) {
				return
			}
		}
	}
	t.Fatalf("render = %q matches no cut near %d and %d of %q", got, h0, t0, data)
}

const fuzzSecret = "SECRET-ABCDEFGH"

// denseUTF8 maps each byte to a character of 1 to 4 bytes.
func denseUTF8(data []byte) []byte {
	chars := []string{"a", "é", "€", "😀"}
	var out []byte
	for _, c := range data {
		out = append(out, chars[c%4]...)
	}
	return out
}

// withSecrets maps data to lowercase text with fuzzSecret wherever data has
// 0xff: any upper-case letter in the output is then part of the secret.
func withSecrets(data []byte) []byte {
	var out []byte
	for _, c := range data {
		if c == 0xff {
			out = append(out, fuzzSecret...)
		} else {
			out = append(out, 'a'+c%26)
		}
	}
	return out
}
