package server

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// searchHint is the hint vendorMeta describes, "" when t has no word to
// add.
func searchHint(t exposure.Tool, title string) string {
	candidates := strings.Fields(title)
	if src, ok := t.(exposure.Sourced); ok {
		candidates = append(candidates, src.Tags()...)
	}
	if a, ok := t.(exposure.Aliased); ok {
		for _, level := range a.Aliases() {
			candidates = append(candidates, level...)
		}
	}
	// What the tool says already, a tag's parts too (scope:system says
	// system), for searches that split there.
	said := map[string]bool{}
	for _, w := range hintTokens(t.Name() + " " + title + " " + t.ModelDescription()) {
		said[w] = true
		for _, part := range strings.Split(w, ":") {
			said[part] = true
		}
	}
	// The words a hint word may be short for: those of the name and title,
	// and the other candidates but tags, which are no words to abbreviate.
	whole := hintTokens(t.Name() + " " + title)
	for _, w := range candidates {
		if !strings.Contains(w, ":") {
			whole = append(whole, strings.ToLower(w))
		}
	}
	var hint []string
	size := -1
	for _, w := range candidates {
		if !adds(w, said, whole) || size+1+len(w) > maxSearchHint {
			continue
		}
		for _, tok := range hintTokens(w) {
			said[tok] = true
		}
		hint = append(hint, w)
		size += 1 + len(w)
	}
	return strings.Join(hint, " ")
}

// adds reports whether w gives a search a word it has not got: one of at
// least three letters that is not said already and is short for none of
// the whole words.
func adds(w string, said map[string]bool, whole []string) bool {
	tokens := hintTokens(w)
	if utf8.RuneCountInString(w) < 3 || !slices.ContainsFunc(tokens, func(tok string) bool { return !said[tok] }) {
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
// connections) or word's plural.
func shortFor(short, word string) bool {
	if short == word+"s" || short == word+"es" {
		return true
	}
	if len(short) >= len(word) || short == "" || short[0] != word[0] {
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
