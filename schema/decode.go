package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds nesting: no fisk property nests deeper than an array of
// scalars or an object of strings, so anything deep is a mistake or an attack.
const maxDepth = 32

// maxNumberLen and maxExponent bound number literals before anything does
// arithmetic on them: a literal such as 1e1000000 costs tens of
// milliseconds to turn into an exact rational, and no fisk value type
// holds anything near it.
const (
	maxNumberLen = 100
	maxExponent  = 400
)

// decoded is the result of strict decoding: the arguments object, with
// values as encoding/json decodes them with UseNumber, and the violations
// found on the way that do not stop decoding (duplicate keys, absurd numbers).
type decoded struct {
	input  map[string]any
	issues []Violation
}

// decodeStrict parses raw as exactly one JSON object. An empty raw means no
// arguments. Malformed JSON, a root that is not an object, invalid UTF-8
// (encoding/json would silently replace it) or data after the object are
// fatal and returned as the only violation.
func decodeStrict(raw []byte) (*decoded, *Violation) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return &decoded{input: map[string]any{}}, nil
	}
	if !utf8.Valid(raw) {
		return nil, &Violation{Message: "not valid UTF-8; send the arguments as a UTF-8 JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	d := &strictDecoder{dec: dec}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxViolation(err)
	}
	if tok != json.Delim('{') {
		return nil, &Violation{Message: fmt.Sprintf("expected a JSON object, got %s; send the arguments as an object such as {\"name\": \"value\"} ({} for none)", tokenKind(tok))}
	}
	input, err := d.object("", 1)
	if err != nil {
		return nil, syntaxViolation(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &Violation{Message: "unexpected data after the JSON object; send exactly one object"}
	}
	return &decoded{input: input, issues: d.issues}, nil
}

type strictDecoder struct {
	dec    *json.Decoder
	issues []Violation
}

var errTooDeep = fmt.Errorf("nested deeper than %d levels", maxDepth)

func (d *strictDecoder) value(ptr string, depth int) (any, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= maxDepth {
			return nil, errTooDeep
		}
		if t == '{' {
			return d.object(ptr, depth+1)
		}
		return d.array(ptr, depth+1)
	case json.Number:
		if !saneNumber(string(t)) {
			d.issues = append(d.issues, Violation{ptr, fmt.Sprintf("the number %s is out of range for any command-line value", truncate(string(t), 40))})
			return json.Number("0"), nil
		}
		return t, nil
	default:
		return t, nil
	}
}

func (d *strictDecoder) object(ptr string, depth int) (map[string]any, error) {
	obj := map[string]any{}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // the decoder guarantees a string key here
		at := pointer(ptr, key)
		v, err := d.value(at, depth)
		if err != nil {
			return nil, err
		}
		if _, dup := obj[key]; dup {
			d.issues = append(d.issues, Violation{at, "duplicate property: the object sets it more than once; send it once"})
		}
		obj[key] = v
	}
	_, err := d.dec.Token() // '}'
	return obj, err
}

func (d *strictDecoder) array(ptr string, depth int) ([]any, error) {
	arr := []any{}
	for i := 0; d.dec.More(); i++ {
		v, err := d.value(pointer(ptr, strconv.Itoa(i)), depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	_, err := d.dec.Token() // ']'
	return arr, err
}

// saneNumber bounds a JSON number literal's length and exponent.
func saneNumber(lit string) bool {
	if len(lit) > maxNumberLen {
		return false
	}
	i := strings.IndexAny(lit, "eE")
	if i < 0 {
		return true
	}
	exp, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
	return err == nil && exp >= -maxExponent && exp <= maxExponent
}

func syntaxViolation(err error) *Violation {
	if errors.Is(err, errTooDeep) {
		return &Violation{Message: "the JSON is " + err.Error() + "; no argument nests that deep"}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Violation{Message: "not valid JSON: the object is incomplete"}
	}
	return &Violation{Message: "not valid JSON: " + err.Error()}
}

func tokenKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "something else"
}

// truncate shortens s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
