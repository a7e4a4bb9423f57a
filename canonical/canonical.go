// Package canonical writes JSON values in one canonical form, so that two
// values a JSON reader cannot tell apart are written alike and two it can
// are written differently. fisk-mcp keys its cache of compiled schemas by
// this form, hashes tool descriptors in it to tell whether a reload changed
// a tool, and hashes a call's arguments in it to bind an approval to them.
//
// The form is JSON with object members sorted by key and no insignificant
// white space, numbers in their JSON text (a float64 as encoding/json
// writes it, a [json.Number] as it is), and strings as Go quoted string
// literals ([strconv.Quote]) rather than JSON strings. Go's quoting is used
// because it is injective on every string: JSON escaping has no way to
// write a byte that is not valid UTF-8, so encoding/json writes every such
// byte as U+FFFD and two different strings the same, which a hash that
// identifies a file path or a description must not do. Strings decoded
// from JSON are valid UTF-8, so for them the two quotings carry the same
// information.
//
// The form is for comparing and hashing only. It is deliberately not
// meant to be parsed back, not stable across releases of fisk-mcp (keys
// and hashes are only compared within one process, or between replicas
// running the same binary), and not a JSON canonicalisation scheme such
// as RFC 8785: numbers keep their text, so 1, 1.0 and 1e0 differ, as they
// do to a reader that keeps a number's text.
package canonical

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// MaxDepth bounds the nesting of a document read by [Encoder.JSON], so that
// a hostile document cannot exhaust the stack: decoding recurses once per
// level. Values already in memory are not bounded; they came from the
// process, and encoding/json bounds what it decodes.
const MaxDepth = 64

// flushAt is how much an Encoder with a writer holds before passing it on:
// enough that a hash sees few writes, small enough to stay in cache.
const flushAt = 4096

// A TypeError reports a value of a type [Encoder.Value] does not write.
type TypeError struct {
	Value any
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("a %T is not a JSON value", e.Value)
}

// ErrDuplicateKey is reported by [Encoder.JSON] for an object that names
// one key twice. Which of the two a reader keeps depends on the reader
// (encoding/json keeps the last, others the first or both), so a document
// with a duplicate key has no one meaning to hash, and an approval bound
// to it would bind to whichever meaning the hash happened to pick.
var ErrDuplicateKey = errors.New("duplicate object key")

// ErrTooDeep is reported by [Encoder.JSON] for a document nested deeper
// than [MaxDepth].
var ErrTooDeep = fmt.Errorf("nested deeper than %d levels", MaxDepth)

// ErrTrailingData is reported by [Encoder.JSON] for a document with more
// than white space after its value. encoding/json's Unmarshal refuses such
// a document while a streaming reader takes the first value only, so, as
// with a duplicate key, it has no one meaning.
var ErrTrailingData = errors.New("trailing data after the JSON value")

// An Encoder appends canonical forms to a buffer. With a writer (see
// [NewEncoder]) it passes the buffer on in pieces of about 4 KiB, so a
// large value is streamed into a hash without being held whole and without
// a write per token. The zero value keeps everything, for [Encoder.Bytes].
//
// An Encoder writes values one after another with nothing between them:
// each value's form is self-delimiting, and the caller frames a sequence
// with [Encoder.Raw].
type Encoder struct {
	// AnyType makes Value write a value of any type: one that is not among
	// the types encoding/json decodes into is written as the canonical form
	// of its encoding/json encoding, so it is written like the JSON value
	// it shows a client; one that encoding/json cannot encode is written as
	// a marker naming its type and the error, which is unlike any JSON
	// value. Without AnyType such a value is a *TypeError.
	AnyType bool

	w   io.Writer
	buf []byte
	err error // the writer's first error
}

// NewEncoder returns an Encoder that passes what it writes on to w, to be
// kept in a variable or a field (it is returned as a value so that it can
// live inside its user without an allocation of its own). Call Flush when
// done.
func NewEncoder(w io.Writer) Encoder {
	return Encoder{w: w, buf: make([]byte, 0, 512)}
}

// Bytes returns what an Encoder without a writer has written, in the
// Encoder's own buffer.
func (e *Encoder) Bytes() []byte { return e.buf }

// Flush passes what is buffered on to the writer and returns the writer's
// first error.
func (e *Encoder) Flush() error {
	if e.w != nil && len(e.buf) > 0 {
		if _, err := e.w.Write(e.buf); err != nil && e.err == nil {
			e.err = err
		}
		e.buf = e.buf[:0]
	}
	return e.err
}

// Raw writes b unchanged: the caller's framing between values, such as a
// field name. Framing must not make two sequences read alike.
func (e *Encoder) Raw(b []byte) { e.buf = append(e.buf, b...) }

// RawString is Raw for a string.
func (e *Encoder) RawString(s string) { e.buf = append(e.buf, s...) }

// String writes s as a string value.
func (e *Encoder) String(s string) { e.buf = strconv.AppendQuote(e.buf, s) }

// Value writes v, a value of the types encoding/json decodes into (nil,
// bool, string, float64, json.Number, map[string]any, []any), or int or
// []string. A value of another type, a float64 that JSON cannot write
// (NaN, ±Inf) or a json.Number that is not a JSON number is a *TypeError
// unless AnyType is set; after an error what was written is incomplete.
func (e *Encoder) Value(v any) error {
	if e.w != nil && len(e.buf) > flushAt {
		e.Flush()
	}
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case string:
		e.buf = strconv.AppendQuote(e.buf, x)
	case json.Number:
		if !isNumber(string(x)) {
			return e.other(v)
		}
		e.buf = append(e.buf, x...)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return e.other(v)
		}
		e.buf = appendFloat(e.buf, x)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case []string:
		e.buf = append(e.buf, '[')
		for i, s := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = strconv.AppendQuote(e.buf, s)
		}
		e.buf = append(e.buf, ']')
	case []any:
		e.buf = append(e.buf, '[')
		for i, el := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err := e.Value(el); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
	case map[string]any:
		return e.Object(x, nil)
	default:
		return e.other(v)
	}
	return nil
}

// Object writes m leaving out the members whose key omit reports (all are
// kept when omit is nil). Members below m are all kept.
func (e *Encoder) Object(m map[string]any, omit func(key string) bool) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		if omit == nil || !omit(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = strconv.AppendQuote(e.buf, k)
		e.buf = append(e.buf, ':')
		if err := e.Value(m[k]); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// other writes a value Value does not walk (see AnyType).
func (e *Encoder) other(v any) error {
	if !e.AnyType {
		return &TypeError{Value: v}
	}
	doc, err := json.Marshal(v)
	var tree any
	if err == nil {
		tree, err = parse(doc, -1)
	}
	if err != nil {
		e.buf = fmt.Appendf(e.buf, "!%T", v)
		e.buf = strconv.AppendQuote(e.buf, err.Error())
		return nil
	}
	return e.Value(tree)
}

// JSON writes the value of the JSON document doc, so that two documents
// encoding/json reads alike are written alike, whatever their member order,
// white space or string escapes. A document that is not one JSON value, or
// whose meaning depends on the reader, is an error: a syntax error,
// nesting deeper than MaxDepth ([ErrTooDeep]), a duplicate key
// ([ErrDuplicateKey]) or trailing data ([ErrTrailingData]). Nothing is
// written on error.
func (e *Encoder) JSON(doc []byte) error {
	tree, err := parse(doc, MaxDepth)
	if err != nil {
		return err
	}
	return e.Value(tree)
}

// parse decodes doc into the types Value walks, numbers as json.Number,
// refusing what JSON documents; limit < 0 leaves the depth unbounded.
func parse(doc []byte, limit int) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	v, err := parseValue(dec, 0, limit)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, ErrTrailingData
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth, limit int) (any, error) {
	if limit >= 0 && depth > limit {
		return nil, ErrTooDeep
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	switch d {
	case '{':
		m := map[string]any{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, ok := tok.(string)
			if !ok {
				return nil, fmt.Errorf("object key is %v, not a string", tok)
			}
			if _, dup := m[key]; dup {
				return nil, fmt.Errorf("%w %q", ErrDuplicateKey, key)
			}
			if m[key], err = parseValue(dec, depth+1, limit); err != nil {
				return nil, err
			}
		}
		_, err := dec.Token() // '}'
		return m, err
	case '[':
		a := []any{}
		for dec.More() {
			v, err := parseValue(dec, depth+1, limit)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token() // ']'
		return a, err
	}
	return nil, fmt.Errorf("unexpected %q", d)
}
