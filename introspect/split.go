package introspect

import "bytes"

// splitDocument finds, without decoding anything, the elements of the
// top-level "commands" array of an introspection document, so that each
// can be decoded on its own CPU without first scanning the whole document
// once more to find them (encoding/json scans a value to delimit it, then
// again to decode it: twice for the document and twice for each command,
// where the parts need only one decode each).
//
// rest is the document with the array emptied ("commands":[]), which
// decodes to everything but the commands; elems are the elements' bytes,
// in order. The split delimits values as JSON does (strings end at an
// unescaped quote; arrays and objects nest) but validates nothing: rest
// and each element are still decoded by encoding/json, which rejects what
// is not JSON. The separators between elements are checked here, so the
// parts are valid exactly when the whole is.
//
// ok is false when the document is not one this fast path is sure to read
// as a whole decode would: no top-level "commands", a key that encoding/json
// would also match to it (another case, an escape), two of them, or
// anything malformed. The caller then decodes the whole document, which
// gives the error a malformed one deserves.
func splitDocument(doc []byte) (rest []byte, elems [][]byte, ok bool) {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return nil, nil, false
	}
	i = skipSpace(doc, i+1)
	arrStart, arrEnd := -1, -1
	for i < len(doc) && doc[i] != '}' {
		keyEnd := skipString(doc, i)
		if keyEnd < 0 {
			return nil, nil, false
		}
		key := doc[i+1 : keyEnd-1]
		commands := string(key) == "commands"
		if !commands && (bytes.IndexByte(key, '\\') >= 0 || bytes.EqualFold(key, []byte("commands"))) {
			return nil, nil, false
		}
		i = skipSpace(doc, keyEnd)
		if i >= len(doc) || doc[i] != ':' {
			return nil, nil, false
		}
		i = skipSpace(doc, i+1)
		if commands {
			if arrStart >= 0 || i >= len(doc) || doc[i] != '[' {
				return nil, nil, false
			}
			arrStart = i
			if i, elems, ok = splitArray(doc, i); !ok {
				return nil, nil, false
			}
			arrEnd = i
		} else if i = skipValue(doc, i, 1); i < 0 { // within the top-level object
			return nil, nil, false
		}
		i = skipSpace(doc, i)
		if i < len(doc) && doc[i] == ',' {
			i = skipSpace(doc, i+1)
			if i >= len(doc) || doc[i] != '"' {
				return nil, nil, false
			}
		} else if i >= len(doc) || doc[i] != '}' {
			return nil, nil, false
		}
	}
	if i >= len(doc) || arrStart < 0 {
		return nil, nil, false
	}
	rest = make([]byte, 0, len(doc)-(arrEnd-arrStart)+2)
	rest = append(append(append(rest, doc[:arrStart]...), "[]"...), doc[arrEnd:]...)
	return rest, elems, true
}

// splitArray returns the end of the array starting at doc[i] and its
// elements.
func splitArray(doc []byte, i int) (end int, elems [][]byte, ok bool) {
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == ']' {
		return i + 1, [][]byte{}, true
	}
	for i < len(doc) {
		e := skipValue(doc, i, 2) // within the object and its array
		if e < 0 {
			return 0, nil, false
		}
		elems = append(elems, doc[i:e])
		i = skipSpace(doc, e)
		switch {
		case i >= len(doc):
			return 0, nil, false
		case doc[i] == ']':
			return i + 1, elems, true
		case doc[i] != ',':
			return 0, nil, false
		}
		i = skipSpace(doc, i+1)
	}
	return 0, nil, false
}

// MaxDepth bounds how deeply an introspection document may nest: far
// deeper than any fisk application's model (nats's deepest is 14 levels),
// and far below what would hurt. Past a few thousand levels the document
// costs minutes at every step of a load and, past a thousand, the MCP
// SDK refuses the tools/list that would carry it; the faster decoder
// recurses without a bound, so a few million levels would end the process
// with a stack overflow, which no recover catches. A deeper document is
// refused before anything decodes it.
const MaxDepth = 100

// depth returns how deeply doc nests: the most objects and arrays open at
// once, as JSON delimits them (strings end at an unescaped quote). It
// validates nothing.
func depth(doc []byte) int {
	deepest, open := 0, 0
	for i := 0; i < len(doc); i++ {
		switch doc[i] {
		case '"':
			if i = skipString(doc, i); i < 0 {
				return deepest
			}
			i--
		case '{', '[':
			open++
			deepest = max(deepest, open)
		case '}', ']':
			open--
		}
	}
	return deepest
}

// skipValue returns the end of the value starting at doc[i], found within
// open objects and arrays, or -1; -1 too when the document would then nest
// deeper than MaxDepth, so that no part the split hands out does.
func skipValue(doc []byte, i, open int) int {
	if i >= len(doc) {
		return -1
	}
	switch doc[i] {
	case '"':
		return skipString(doc, i)
	case '{', '[':
		depth := 0
		for i < len(doc) {
			switch doc[i] {
			case '"':
				if i = skipString(doc, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				if depth++; open+depth > MaxDepth {
					return -1
				}
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	case ',', ':', '}', ']':
		return -1
	}
	// A number or a literal: it ends where a separator or space does.
	start := i
	for i < len(doc) {
		switch doc[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		case '"', '{', '[', ':':
			return -1
		}
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// skipString returns the end of the string whose opening quote is doc[i],
// or -1.
func skipString(doc []byte, i int) int {
	if i >= len(doc) || doc[i] != '"' {
		return -1
	}
	for i++; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) {
		switch doc[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}
