package execrunner

import (
	"context"
	"strings"
	"testing"
)

// repoSecret starts and ends with the same character, as about one random
// token in 64 does: its last byte is also a prefix of itself.
const repoSecret = "K7fQ2mZp9xLw3TK"

func TestRingBufferRedactsASecretAtACutWholeOrShowsNoneOfIt(t *testing.T) {
	a, b := strings.Repeat, strings.Repeat
	tests := []struct {
		name    string
		secrets []string
		limit   int
		input   string
		want    string
	}{
		{
			"secret whose first and last characters agree ends the head",
			[]string{repoSecret}, 64,
			a("a", 17) + repoSecret + b("b", 100),
			a("a", 17) + Redacted + dropMarker(68) + b("b", 32),
		},
		{
			"secret whose first and last characters agree starts the tail",
			[]string{repoSecret}, 64,
			a("a", 100) + repoSecret + b("b", 17),
			a("a", 32) + dropMarker(68) + Redacted + b("b", 17),
		},
		{
			"secret ending the head where another secret begins",
			[]string{"aaaaJOIN", "JOINbbbb"}, 32,
			"xxxxxxxxaaaaJOIN" + a(".", 20) + b("y", 16),
			"xxxxxxxx" + Redacted + dropMarker(20) + b("y", 16),
		},
		{
			"secret starting the tail where another secret ends",
			[]string{"aaaaJOIN", "JOINbbbb"}, 32,
			a("x", 16) + a(".", 20) + "JOINbbbbyyyyyyyy",
			a("x", 16) + dropMarker(20) + Redacted + "yyyyyyyy",
		},
		{
			"overlapping secrets cut in the second: the first shows as redacted, the rest is dropped",
			[]string{"aaaaJOIN", "JOINbbbb"}, 40,
			"xxxxxxxxxxaaaaJOINbb" + "bbyy" + a(".", 20) + b("z", 20),
			"xxxxxxxxxx" + Redacted + dropMarker(26) + b("z", 20),
		},
		{
			"overlapping secrets across both cuts: nothing of either is shown",
			[]string{"aaaaJOIN", "JOINbbbb"}, 24,
			"xxxxxxxxaaaa" + "JOIN" + "bbbbzzzzzzzz",
			"xxxxxxxx" + dropMarker(12) + "zzzzzzzz",
		},
		{
			"one occurrence spans both cuts",
			[]string{"SECRET-0123456789-VALUE"}, 16,
			"headSECRET-0123456789-VALUEtail",
			"head" + dropMarker(23) + "tail",
		},
		{
			"innocent bytes that look like a secret's start are dropped and counted",
			[]string{repoSecret}, 16,
			"abcdefgK" + a(".", 10) + "zzzzzzzz",
			"abcdefg" + dropMarker(11) + "zzzzzzzz",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewRingBuffer(tt.limit)
			_, _ = b.Write([]byte(tt.input))
			if got := b.render(NewRedactor(tt.secrets...)); got != tt.want {
				t.Fatalf("render = %q\n          want %q", got, tt.want)
			}
		})
	}
}

// Without a cut, head and tail are one text: a secret across the point
// where the head ends is still one occurrence.
func TestRingBufferRedactsASecretAcrossHeadAndTailWhenNothingIsDropped(t *testing.T) {
	b := NewRingBuffer(32) // head 16, tail 16
	_, _ = b.Write([]byte("aaaaaaaaaaaa" + repoSecret + "zzzzz"))
	if got, want := b.render(NewRedactor(repoSecret)), "aaaaaaaaaaaa"+Redacted+"zzzzz"; got != want {
		t.Fatalf("render = %q, want %q", got, want)
	}
}

// A secret may begin with a continuation byte or end with a lead byte (an
// environment value need not be UTF-8). Dropping its fragment must not then
// leave half a character, which would show as U+FFFD.
func TestRingBufferCutsAtSecretFragmentsNeverSplitACharacter(t *testing.T) {
	tests := []struct {
		name, secret, input, want string
	}{
		{"head", "\xa9abcdefgh", "xxxxé" + "ab" + "........" + "zzzzzzzz", "xxxx" + dropMarker(12) + "zzzzzzzz"},
		{"tail", "abcdefgh\xc3", "xxxxxxxx" + "........" + "fgh\xc3\xa9zzz", "xxxxxxxx" + dropMarker(13) + "zzz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewRingBuffer(16)
			_, _ = b.Write([]byte(tt.input))
			if got := b.render(NewRedactor(tt.secret)); got != tt.want {
				t.Fatalf("render = %q, want %q", got, tt.want)
			}
		})
	}
}

// The repro through a real process and the default capture limit: the
// secret ends exactly at the head's end, or starts the tail exactly.
func TestRunRedactsASecretLyingExactlyAtACut(t *testing.T) {
	const half = DefaultCaptureLimit / 2
	tests := []struct {
		name      string
		arg, want string
	}{
		{
			"secret ends the head",
			strings.Repeat("a", half-len(repoSecret)) + repoSecret + strings.Repeat("b", 40000),
			strings.Repeat("a", half-len(repoSecret)) + Redacted +
				dropMarker(int64(half-len(repoSecret)+len(repoSecret)+40001-DefaultCaptureLimit)) +
				strings.Repeat("b", half-1) + "\n",
		},
		{
			"secret starts the tail",
			strings.Repeat("a", 40000) + repoSecret + strings.Repeat("b", half-len(repoSecret)-1),
			strings.Repeat("a", half) + dropMarker(40000-half) + Redacted +
				strings.Repeat("b", half-len(repoSecret)-1) + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := helperCmd("echo", tt.arg)
			c.Redactor = NewRedactor("ANTHROPIC_API_KEY", repoSecret)
			res, err := Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(res.Output, repoSecret[:len(repoSecret)/2]) || strings.Contains(res.Output, repoSecret[len(repoSecret)/2:]) {
				t.Fatalf("output shows part of the secret: ...%q...", around(res.Output, "dropped"))
			}
			if res.Output != tt.want {
				t.Fatalf("output differs around the cut: %q, want %q", around(res.Output, "dropped"), around(tt.want, "dropped"))
			}
		})
	}
}

// around returns the 60 bytes either side of the first sep in s.
func around(s, sep string) string {
	i := max(strings.Index(s, sep), 0)
	return s[max(0, i-60):min(len(s), i+60)]
}

func TestRedactorDisplayCommandLineHidesSecretsTheQuotingRewrites(t *testing.T) {
	r := NewRedactor("sk'ant-SECRET1", "line\nbreak-SECRET2", "spans two-words")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"plain", []string{"--key=sk'ant-SECRET1x"}, "/bin/x '--key=[redacted]x'"},
		{"quote in the secret", []string{"a b sk'ant-SECRET1"}, "/bin/x 'a b [redacted]'"},
		{"newline in the secret", []string{"line\nbreak-SECRET2"}, "/bin/x '[redacted]'"},
		{"secret across words", []string{"spans", "two-words"}, "/bin/x [redacted]"},
		{"nothing secret", []string{"it's"}, `/bin/x 'it'\''s'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.DisplayCommandLine("/bin/x", tt.args); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	var none *Redactor
	if got, want := none.DisplayCommandLine("/bin/x", []string{"a b"}), DisplayCommandLine("/bin/x", []string{"a b"}); got != want {
		t.Fatalf("nil Redactor: %q, want %q", got, want)
	}
}
