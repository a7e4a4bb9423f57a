// Package ident checks the identifiers fisk-mcp puts where nothing is
// escaped: tool names, which LLM tool APIs take as ^[A-Za-z0-9_-]{1,64}$,
// and the IDs that name approval pages and cookie paths.
//
// It is a loop, not a regular expression: a bounded repetition compiles to
// one copy per repetition, on every start, and a few hundred tool names are
// checked before the first tools/list.
package ident

// Valid reports whether s is 1 to max ASCII letters, digits, '-' or '_'.
func Valid(s string, max int) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
