package discovery

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The vendor _meta keys of tool descriptors that clients which defer tools
// by themselves read (Claude Code): MetaAlwaysLoad sends the tool to the
// model up front, MetaSearchHint adds words its tool search matches.
const (
	MetaAlwaysLoad = "anthropic/alwaysLoad"
	MetaSearchHint = "anthropic/searchHint"
)

// MaxSearchHint bounds a searchHint in bytes: it is a few extra words for a
// client's tool search, not a second description.
const MaxSearchHint = 160

// VendorMeta is the _meta of a served tool's descriptor, title being the
// descriptor's title: a searchHint for a tool with words to add, and
// alwaysLoad for an ai:no_defer tool, so that a client deferring tools by
// itself (Claude Code) finds the one and sends the other up front. Clients
// that do not know the keys ignore them, as the protocol allows.
//
// The hint holds only words the client's search could not match already,
// since it reads the name and description too: the application's aliases
// for the words of the title (stream rm is also stream delete), and any
// word of the title or a tag the description lacks (the tags end the
// description of every command that has any). Left out are words shorter
// than three letters and abbreviations or plurals of a word of the name or
// of another word of the hint (str of stream, acct of account, users of
// user), which a search of whole words gains nothing from. A tool with
// nothing to add carries no hint: on a large CLI the key alone weighs
// kilobytes.
func VendorMeta(t exposure.Tool, title string) mcp.Meta {
	m := mcp.Meta{}
	if hint := searchHint(t, title); hint != "" {
		m[MetaSearchHint] = hint
	}
	if exposure.NoDefer(t) {
		m[MetaAlwaysLoad] = true
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// searchHint is the hint VendorMeta describes, "" when t has no word to
// add. It is taken for every listed tool of a set on the way to the first
// tools/list, so what the tool says already is searched for each word a
// hint might add (see said) rather than split into a set of its words.
func searchHint(t exposure.Tool, title string) string {
	candidates, whole := hintWords(t, title)
	// What the tool says already, a tag's parts too (scope:system says
	// system), for searches that split there.
	s := said{text: strings.ToLower(t.Name() + " " + title + " " + t.ModelDescription())}
	var hint []string
	size := -1
	for _, w := range candidates {
		if !adds(w, &s, whole) || size+1+len(w) > MaxSearchHint {
			continue
		}
		s.more = append(s.more, hintTokens(w)...)
		hint = append(hint, w)
		size += 1 + len(w)
	}
	return strings.Join(hint, " ")
}

// hintWords returns the words a hint of t might hold, in the order they
// are tried (the title's, the tags, the aliases), and the whole words a
// hint word may be short for: those of the name and title, and the
// candidates but tags, which are no words to abbreviate.
func hintWords(t exposure.Tool, title string) (candidates, whole []string) {
	candidates = strings.Fields(title)
	if src, ok := t.(exposure.Sourced); ok {
		candidates = append(candidates, src.Tags()...)
	}
	if a, ok := t.(exposure.Aliased); ok {
		for _, level := range a.Aliases() {
			candidates = append(candidates, level...)
		}
	}
	whole = hintTokens(t.Name() + " " + title)
	for _, w := range candidates {
		if !strings.Contains(w, ":") {
			whole = append(whole, strings.ToLower(w))
		}
	}
	return candidates, whole
}

// said is what a tool says already: its text, in lower case, and the words
// of the hint so far.
type said struct {
	text string
	more []string
}

// has reports whether tok (a word as hintTokens gives it) is said: a word
// of the text, or a part of one between colons (a tag's key or value), or
// a word of the hint so far.
func (s *said) has(tok string) bool {
	if slices.Contains(s.more, tok) {
		return true
	}
	// Where tok is a part, a colon may bound it; where it holds a colon
	// it must be a whole word.
	bound := func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && (r != ':' || !strings.Contains(tok, ":"))
	}
	for from := 0; ; {
		i := strings.Index(s.text[from:], tok)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s.text[:i])
		after, _ := utf8.DecodeRuneInString(s.text[i+len(tok):])
		if (i == 0 || bound(before)) && (i+len(tok) == len(s.text) || bound(after)) {
			return true
		}
		from = i + 1
	}
}

// adds reports whether w gives a search a word it has not got: one of at
// least three letters that is not said already and is short for none of
// the whole words.
func adds(w string, s *said, whole []string) bool {
	if utf8.RuneCountInString(w) < 3 || !slices.ContainsFunc(hintTokens(w), func(tok string) bool { return !s.has(tok) }) {
		return false
	}
	lw := strings.ToLower(w)
	return !slices.ContainsFunc(whole, func(word string) bool { return shortFor(lw, word) })
}

// hintTokens are the words of text as a tool search compares them: lower
// case runs of letters, digits and ":" (a tag's key and value stay one
// word), so stream_rm says stream and rm, and "impact:rw," says impact:rw.
func hintTokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r != ':' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// shortFor reports whether short is an abbreviation of word (its first
// letter, then some of the others in order: str, acct, conns for
// connections), a run of word's letters (nfo for info, an alias some apps
// accept for a slip of the keyboard: no search says it for anything but
// the word), or word's plural.
func shortFor(short, word string) bool {
	if short == word+"s" || short == word+"es" {
		return true
	}
	if len(short) >= len(word) || short == "" {
		return false
	}
	if strings.Contains(word, short) {
		return true
	}
	if short[0] != word[0] {
		return false
	}
	rest := word[1:]
	for _, r := range short[1:] {
		i := strings.IndexRune(rest, r)
		if i < 0 {
			return false
		}
		rest = rest[i+utf8.RuneLen(r):]
	}
	return true
}
