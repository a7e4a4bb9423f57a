package execrunner

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DisplayCommandLine renders path and args as one line for a person to read:
// in an approval prompt, in a log. Words made only of plainly safe characters
// are shown bare; others are single-quoted; a word holding anything a
// terminal or a prompt could render misleadingly — control characters,
// escape sequences, newlines, invalid UTF-8, invisible or bidirectional
// formatting characters — is shown in bash's $'...' form with every such
// character escaped visibly (\n, \x1b, \u202e). So a value can never hide
// part of the command, fake a second line, or recolour the prompt.
//
// The quoting follows bash: pasted into bash, the line runs the same argv.
// It is for display only; execrunner never runs a command through a shell.
func DisplayCommandLine(path string, args []string) string {
	var b strings.Builder
	quoteWord(&b, path)
	for _, a := range args {
		b.WriteByte(' ')
		quoteWord(&b, a)
	}
	return b.String()
}

func quoteWord(b *strings.Builder, s string) {
	switch {
	case s == "":
		b.WriteString("''")
	case isPlainWord(s):
		b.WriteString(s)
	case isPrintable(s):
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(s, "'", `'\''`))
		b.WriteByte('\'')
	default:
		writeANSIC(b, s)
	}
}

// isPlainWord reports whether s needs no quoting for bash: no character in
// it is special anywhere in a word.
func isPlainWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("@%+=:,./_-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// isPrintable reports whether every character of s shows as itself: valid
// UTF-8, and only graphic characters or the ASCII space.
func isPrintable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// writeANSIC writes s as $'...' with every non-printing character escaped.
// A literal U+FFFD is escaped too, so it cannot pass for an invalid byte.
func writeANSIC(b *strings.Builder, s string) {
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(b, `\x`, uint32(s[i]), 2)
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && !unicode.IsPrint(r):
			writeHex(b, `\x`, uint32(r), 2)
		case r == utf8.RuneError || !unicode.IsPrint(r):
			if r > 0xFFFF {
				writeHex(b, `\U`, uint32(r), 8)
			} else {
				writeHex(b, `\u`, uint32(r), 4)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('\'')
}

// writeHex writes prefix and v as exactly digits hex digits: a fixed width,
// so a following hex-digit character is never read as part of the escape.
func writeHex(b *strings.Builder, prefix string, v uint32, digits int) {
	h := strconv.FormatUint(uint64(v), 16)
	b.WriteString(prefix)
	b.WriteString(strings.Repeat("0", digits-len(h)))
	b.WriteString(h)
}
