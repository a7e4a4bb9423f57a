package visible

import "testing"

func TestEscapeNamesWhatIsNotShownAndKeepsTheRest(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, é and 日本":          "plain text, é and 日本",
		"a\x1b[31mb":                    `a\x1b[31mb`,
		"line\nbreak\r\ttab":            `line\nbreak\r\ttab`,
		"rtl \u202eoverride \u200bzero": `rtl \u{202e}override \u{200b}zero`,
		"bad \xff byte, del \x7f":       `bad \xff byte, del \x7f`,
		"c1 \u009b and \ufffd":          `c1 \u{009b} and \u{fffd}`,
		`already \x1b escaped`:          `already \x1b escaped`,
	} {
		if got := Escape(in, Graphic); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	keepBreaks := func(r rune) bool { return r == '\n' || Graphic(r) }
	if got := Escape("two\nlines\x07", keepBreaks); got != "two\nlines\\x07" {
		t.Errorf("Escape keeping line breaks = %q", got)
	}
}
