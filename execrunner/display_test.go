package execrunner

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestDisplayCommandLineQuotesAndEscapes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"plain words stay bare", []string{"stream", "ls", "--json", "--server=nats://a:4222"}, "/bin/nats stream ls --json --server=nats://a:4222"},
		{"empty argument", []string{""}, "/bin/nats ''"},
		{"spaces and shell syntax are single-quoted", []string{"a b", "$(rm -rf /)", "x;y", "*"}, `/bin/nats 'a b' '$(rm -rf /)' 'x;y' '*'`},
		{"single quote inside single quotes", []string{"it's"}, `/bin/nats 'it'\''s'`},
		{"newline cannot fake a second line", []string{"ok\nrm -rf /"}, `/bin/nats $'ok\nrm -rf /'`},
		{"ANSI escape cannot recolour the prompt", []string{"\x1b[2K\x1b[1Aapproved"}, `/bin/nats $'\x1b[2K\x1b[1Aapproved'`},
		{"carriage return, tab and NUL-like controls", []string{"a\rb\tc\x00d\x7f"}, `/bin/nats $'a\rb\tc\x00d\x7f'`},
		{"invalid UTF-8 bytes", []string{"a\xffb\xc3"}, `/bin/nats $'a\xffb\xc3'`},
		{"bidi override and zero-width space", []string{"abc\u202Edef\u200B"}, `/bin/nats $'abc\u202edef\u200b'`},
		{"C1 control and no-break space", []string{"a\u0085b\u00a0c"}, `/bin/nats $'a\u0085b\u00a0c'`},
		{"backslash and quote inside escapes", []string{"a\\b'c\n"}, `/bin/nats $'a\\b\'c\n'`},
		{"literal replacement character is escaped", []string{"\uFFFD\n"}, `/bin/nats $'\ufffd\n'`},
		{"printable unicode stays readable", []string{"héllo wörld", "日本"}, `/bin/nats 'héllo wörld' '日本'`},
		{"fixed-width escapes before hex digits", []string{"\x1bab\u202e1234"}, `/bin/nats $'\x1bab\u202e1234'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DisplayCommandLine("/bin/nats", tt.args); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// The display is bash syntax: bash parses it back into the same argv.
func TestDisplayCommandLineRoundTripsThroughBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	args := []string{"plain", "", "a b", "it's", "$HOME", "`x`", "ok\nrm -rf /", "\x1b[31mred\x1b[0m",
		"a\xffb\xc3", "abc\u202Edef\u200B", "a\u0085b\u00a0c", "a\\b'c\n", "\uFFFD", "\x1bab\u202e1234",
		"\U0001F600", "\U000E0041", "--flag=va lue"}
	// printf prints each argument followed by a NUL, which no argument holds.
	line := DisplayCommandLine("printf", append([]string{`%s\0`}, args...))
	cmd := exec.Command(bash, "-c", line)
	cmd.Env = []string{"LC_ALL=C.UTF-8"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash -c %s: %v", line, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, args) {
		t.Fatalf("bash read %q\nfrom %s\nwant %q", got, line, args)
	}
}

// FuzzDisplayCommandLine checks that no argument, however crafted, puts a
// character into the display that a terminal would not show as itself.
func FuzzDisplayCommandLine(f *testing.F) {
	f.Add("plain", "a\nb")
	f.Add("\x1b[31m", "\xff\u202e")
	f.Fuzz(func(t *testing.T, a, b string) {
		line := DisplayCommandLine("/bin/x", []string{a, b})
		if !utf8.ValidString(line) {
			t.Fatalf("invalid UTF-8: %q", line)
		}
		for _, r := range line {
			if r == utf8.RuneError || !unicode.IsPrint(r) {
				t.Fatalf("non-printing %U in %q", r, line)
			}
		}
	})
}
