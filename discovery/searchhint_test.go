package discovery

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// hintTool is a tool as searchHint reads it: its name, model description,
// tags and aliases.
type hintTool struct {
	exposure.Tool
	name, desc string
	tags       []string
	aliases    [][]string
}

func (h hintTool) Name() string             { return h.name }
func (h hintTool) ModelDescription() string { return h.desc }
func (h hintTool) Source() string           { return "custom" }
func (h hintTool) Title() string            { return strings.ReplaceAll(h.name, "_", " ") }
func (h hintTool) Tags() []string           { return h.tags }
func (h hintTool) Aliases() [][]string      { return h.aliases }

// searchHintBySet is searchHint as first written, reading what the tool
// says as a set of its words. searchHint must give exactly what it gives.
func searchHintBySet(t exposure.Tool, title string) string {
	candidates, whole := hintWords(t, title)
	said := map[string]bool{}
	for _, w := range hintTokens(t.Name() + " " + title + " " + t.ModelDescription()) {
		said[w] = true
		for _, part := range strings.Split(w, ":") {
			said[part] = true
		}
	}
	var hint []string
	size := -1
	for _, w := range candidates {
		tokens := hintTokens(w)
		lw := strings.ToLower(w)
		if utf8.RuneCountInString(w) < 3 || !slices.ContainsFunc(tokens, func(tok string) bool { return !said[tok] }) ||
			slices.ContainsFunc(whole, func(word string) bool { return shortFor(lw, word) }) || size+1+len(w) > MaxSearchHint {
			continue
		}
		for _, tok := range tokens {
			said[tok] = true
		}
		hint = append(hint, w)
		size += 1 + len(w)
	}
	return strings.Join(hint, " ")
}

func TestSearchHintEqualsTheHintOfEveryWordSaid(t *testing.T) {
	for _, tool := range fixtureSet(t, exposure.Policy{}).Tools() {
		if got, want := searchHint(tool, titleOf(tool)), searchHintBySet(tool, titleOf(tool)); got != want {
			t.Errorf("%s: searchHint = %q, want %q", tool.Name(), got, want)
		}
	}
	// Words that meet at colons, inside other words, in other cases and
	// scripts, and hint words that repeat one another.
	words := []string{"rm", "delete", "del", "remove", "scope", "system", "scope:system", "impact:rw", "rw", "impact",
		"Stream", "stream", "streams", "str", "obs", "object", "ÉTAT", "état", "x:y:z", "y", "ls", "list", "kv", "kvs",
		"ïnfo", "info", "nfo", "raft", "elect", "elects", "a:b", "b", "dé", "user", "users:admin", "admin"}
	seps := []string{" ", ":", ", ", "_", "-", "\n", "", "(", "é"}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) []string {
		out := make([]string, r.IntN(n))
		for i := range out {
			out[i] = words[r.IntN(len(words))]
		}
		return out
	}
	text := func() string {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		return b.String()
	}
	checked := 0
	for i := range 20000 {
		h := hintTool{name: strings.Join(pick(3), "_") + fmt.Sprint(i%3), desc: text(), tags: pick(3)}
		for range r.IntN(3) {
			h.aliases = append(h.aliases, pick(4))
		}
		got, want := searchHint(h, h.Title()), searchHintBySet(h, h.Title())
		if got != want {
			t.Fatalf("%+v: searchHint = %q, want %q", h, got, want)
		}
		if want != "" {
			checked++
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d of the tools had a hint; the comparison says little", checked)
	}
}

func TestShortForTellsAbbreviationsFragmentsAndPluralsFromOtherWords(t *testing.T) {
	for _, c := range []struct {
		short, word string
		want        bool
	}{
		{"str", "stream", true}, {"acct", "account", true}, {"conns", "connections", true},
		{"nfo", "info", true}, {"ream", "stream", true}, {"users", "user", true}, {"indexes", "index", true},
		{"member", "admin", false}, {"expel", "delete", false}, {"stream", "stream", false},
		{"sterm", "stream", false}, {"streams", "str", false}, {"", "info", false},
	} {
		if got := shortFor(c.short, c.word); got != c.want {
			t.Errorf("shortFor(%q, %q) = %v, want %v", c.short, c.word, got, c.want)
		}
	}
}
