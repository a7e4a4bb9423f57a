package server

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendJSON appends v to dst in exactly the bytes a json.Encoder without
// HTML escaping writes for it (object members sorted by key, strings
// escaped as encoding/json escapes them, numbers in its forms), for the
// types a decoded JSON document is made of (nil, bool, string, float64,
// json.Number, map[string]any, []any) and the int and []string a schema
// built in Go holds. It reports false for any other type and for a value
// encoding/json refuses (NaN, an invalid json.Number), so that the caller
// asks encoding/json, which decides and reports it.
//
// It exists because every listed tool's input schema is encoded on the way
// to the first tools/list, and encoding/json walks a map[string]any by
// reflection, sorting each object's keys through reflect values: on a
// large CLI that was most of the registration's CPU.
func appendJSON(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		return strconv.AppendBool(dst, x), true
	case string:
		return appendJSONString(dst, x), true
	case json.Number:
		return appendJSONNumber(dst, x)
	case float64:
		return appendJSONFloat(dst, x)
	case int:
		return strconv.AppendInt(dst, int64(x), 10), true
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), true
		}
		return appendJSONObject(dst, x)
	case []any:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendJSON(dst, e); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case []string:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, e)
		}
		return append(dst, ']'), true
	}
	return dst, false
}

func appendJSONObject(dst []byte, m map[string]any) ([]byte, bool) {
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // encoding/json sorts by the key string
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		var ok bool
		if dst, ok = appendJSON(dst, m[k]); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// appendJSONNumber writes n as encoding/json does: "" as 0, anything else
// only when it is a JSON number.
func appendJSONNumber(dst []byte, n json.Number) ([]byte, bool) {
	s := string(n)
	if s == "" {
		return append(dst, '0'), true
	}
	// A JSON text that starts with "-" or a digit and ends with a digit,
	// white space excluded, is a number.
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	if !(s[0] == '-' || digit(s[0])) || !digit(s[len(s)-1]) || !json.Valid([]byte(s)) {
		return dst, false
	}
	return append(dst, s...), true
}

// appendJSONFloat writes f as encoding/json writes a float64: like
// ECMAScript's number to string, exponents without padding.
func appendJSONFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// appendJSONString writes s as encoding/json does without HTML escaping:
// the short escapes, \u00XX for other control characters, \ufffd for each
// byte that is not UTF-8, and U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
