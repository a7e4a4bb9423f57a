package catalog

// stem strips the common English inflections from a lowercased word, in
// place, and returns the stem. It is a deliberately small suffix stripper,
// not a full Porter stemmer: tool text is short and full of identifiers,
// and every rule here must be safe on CLI words (status, bus, ls, ping,
// address and rm stay as they are). The stem need not be a word; it only
// has to be the same for the forms that should meet:
//
//	delete, deletes, deleted, deleting -> delet
//	entry, entries -> entry;  connection(s), connected, connect -> connect
//
// Words with letters outside ASCII are left alone.
func stem(w []byte) []byte {
	if rulesOff&offStem != 0 {
		return w
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			if c < '0' || c > '9' {
				return w
			}
		}
	}
	if len(w) <= 3 {
		return w
	}
	w = americanize(w)
	w = unplural(w)
	switch {
	case hasSuffix(w, "ing") && len(w) >= 6 && hasVowel(w[:len(w)-3]):
		w = undouble(w[:len(w)-3])
	case hasSuffix(w, "ed") && len(w) >= 5 && hasVowel(w[:len(w)-2]):
		w = undouble(w[:len(w)-2])
	case hasSuffix(w, "ion") && len(w) >= 7:
		w = w[:len(w)-3]
	}
	if hasSuffix(w, "e") && len(w) >= 4 {
		w = w[:len(w)-1]
	}
	return w
}

// unplural strips a plural or third-person "s".
func unplural(w []byte) []byte {
	switch {
	case hasSuffix(w, "ies") && len(w) >= 5:
		w = append(w[:len(w)-3], 'y')
	case hasSuffix(w, "sses"), hasSuffix(w, "shes"), hasSuffix(w, "ches"), hasSuffix(w, "xes"):
		w = w[:len(w)-2]
	case hasSuffix(w, "ss"), hasSuffix(w, "us"), hasSuffix(w, "is"):
	case hasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	return w
}

// undouble turns the doubled final consonant of "running" or "dropped"
// back into one; ll, ss and zz are kept (install, press, buzz).
func undouble(w []byte) []byte {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && !isVowel(w[n-1]) {
		switch w[n-1] {
		case 'l', 's', 'z':
		default:
			return w[:n-1]
		}
	}
	return w
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		if isVowel(c) || c == 'y' {
			return true
		}
	}
	return false
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}

// americanize spells the British -ise and -yse forms (analyse, organised,
// summarising, normalisation) as -ize and -yze, so that both spellings
// meet. Tool text and queries go through it alike, so a word it changes
// by mistake (promise) still meets itself.
func americanize(w []byte) []byte {
	for _, suffix := range []string{"isation", "ise", "ised", "ises", "ising", "yse", "ysed", "yses", "ysing"} {
		if len(w) >= len(suffix)+3 && hasSuffix(w, suffix) {
			w[len(w)-len(suffix)+1] = 'z'
			return w
		}
	}
	return w
}

// rulesOff switches families of rules off, for measuring what each earns.
type families uint32

const (
	offStem families = 1 << iota
	offNames
	offGrammar
)

var rulesOff families
