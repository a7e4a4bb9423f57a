package server

import "testing"

func TestShortForTellsAbbreviationsAndPluralsFromOtherWords(t *testing.T) {
	for _, c := range []struct {
		short, word string
		want        bool
	}{
		{"str", "stream", true},
		{"acct", "account", true},
		{"conns", "connections", true},
		{"users", "user", true},
		{"statuses", "status", true},
		{"srv", "server", true},
		{"delete", "rm", false},
		{"nfo", "info", false},      // another first letter: the app's own word
		{"system", "sys", false},    // longer than the word
		{"stream", "stream", false}, // the word itself is said, not short for it
		{"view", "info", false},
	} {
		if got := shortFor(c.short, c.word); got != c.want {
			t.Errorf("shortFor(%q, %q) = %v, want %v", c.short, c.word, got, c.want)
		}
	}
}
