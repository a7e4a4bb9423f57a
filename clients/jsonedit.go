package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// This file edits one member of a JSON or JSONC document in place: the rest
// of the text, comments and layout included, is kept byte for byte.

// stripJSONC returns data with its comments and trailing commas blanked out
// by spaces (newlines kept), so that offsets into the result are offsets
// into data and the result is plain JSON when data is valid JSONC; and the
// offsets of the trailing commas removed.
func stripJSONC(data []byte) ([]byte, []int) {
	out := slices.Clone(data)
	var trailing []int
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			i = stringEnd(data, i) - 1
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			end := bytes.IndexByte(data[i:], '\n')
			if end < 0 {
				end = len(data) - i
			}
			blank(i, i+end)
			i += end - 1
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return out, trailing // unterminated: left for the JSON decoder to refuse
			}
			blank(i, i+2+end+2)
			i += 2 + end + 1
		}
	}
	// With the comments blank, a trailing comma is one that only space
	// separates from a closing bracket.
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case '"':
			i = stringEnd(out, i) - 1
		case ',':
			j := skipSpace(out, i+1)
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
				trailing = append(trailing, i)
			}
		}
	}
	slices.Sort(trailing)
	return out, trailing
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// jsonNode is a value of a valid plain JSON text, with its place in it.
type jsonNode struct {
	start, end int // the value's text is [start, end)
	members    []jsonMember
	object     bool
}

type jsonMember struct {
	key      string
	keyStart int
	value    *jsonNode
}

// member returns the last member named key (encoding/json's choice when a
// key repeats), or nil.
func (n *jsonNode) member(key string) *jsonMember {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return &n.members[i]
		}
	}
	return nil
}

// parseJSONNode scans the valid plain JSON text s from offset i.
func parseJSONNode(s []byte, i int) (*jsonNode, int) {
	i = skipSpace(s, i)
	n := &jsonNode{start: i}
	switch s[i] {
	case '{', '[':
		n.object = s[i] == '{'
		i = skipSpace(s, i+1)
		for s[i] != '}' && s[i] != ']' {
			var m jsonMember
			if n.object {
				m.keyStart = i
				end := stringEnd(s, i)
				_ = json.Unmarshal(s[i:end], &m.key)
				i = skipSpace(s, end) + 1 // the colon
			}
			m.value, i = parseJSONNode(s, i)
			n.members = append(n.members, m)
			if i = skipSpace(s, i); s[i] == ',' {
				i = skipSpace(s, i+1)
			}
		}
		i++
	case '"':
		i = stringEnd(s, i)
	default:
		for i < len(s) && !isSpace(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']' {
			i++
		}
	}
	n.end = i
	return n, i
}

// stringEnd returns the offset after the string starting at i (or the end
// of s, for an unterminated one).
func stringEnd(s []byte, i int) int {
	for i++; i < len(s) && s[i] != '"'; i++ {
		if s[i] == '\\' {
			i++
		}
	}
	return min(i+1, len(s))
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// jsonDoc is a client's JSON file as read: the text, the plain JSON it
// stands for, and its root object.
type jsonDoc struct {
	data, plain []byte
	trailing    []int
	root        *jsonNode // nil for an empty file
}

// errComments marks a comment in a file of a client that reads plain JSON.
var errComments = errors.New("the file has comments or trailing commas, which this client does not read")

func parseJSONDoc(data []byte, comments bool) (*jsonDoc, error) {
	d := &jsonDoc{data: data, plain: data}
	if comments {
		d.plain, d.trailing = stripJSONC(data)
	}
	if len(bytes.Trim(d.plain, " \t\r\n")) == 0 { // JSON's whitespace only
		return d, nil
	}
	var v any
	if err := json.Unmarshal(d.plain, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			if !comments && (bytes.Contains(data, []byte("//")) || bytes.Contains(data, []byte("/*"))) {
				if _, err := parseJSONDoc(data, true); err == nil {
					return nil, errComments
				}
			}
			return nil, fmt.Errorf("line %d: %v", line, se)
		}
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("the top level is not an object")
	}
	d.root, _ = parseJSONNode(d.plain, 0)
	return d, nil
}

// decoded returns the value of the text [from, to) of the document.
func (d *jsonDoc) decoded(from, to int) any {
	var v any
	_ = json.Unmarshal(d.plain[from:to], &v)
	return v
}

// indentUnit guesses the document's indentation step from its first
// indented line; two spaces when it has none.
func (d *jsonDoc) indentUnit() string {
	for _, line := range bytes.Split(d.data, []byte("\n"))[1:] {
		if ws := leadingSpace(line); len(ws) > 0 && len(ws) < len(line) {
			return string(ws)
		}
	}
	return "  "
}

func leadingSpace(line []byte) []byte {
	return line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
}

// lineIndent returns the indentation of the line holding offset i.
func (d *jsonDoc) lineIndent(i int) string {
	start := bytes.LastIndexByte(d.data[:i], '\n') + 1
	return string(leadingSpace(d.data[start:i]))
}

// renderMember renders "key": value for a member at indentation indent.
func renderMember(key string, value any, indent, unit string) (string, error) {
	k, err := json.Marshal(key)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, unit)
	if err := enc.Encode(value); err != nil {
		return "", err
	}
	return string(k) + ": " + string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// insertMember returns the document with key: value added as the last
// member of object obj, keeping its comments and its comma style.
func (d *jsonDoc) insertMember(obj *jsonNode, key string, value any) ([]byte, error) {
	unit := d.indentUnit()
	closeAt := obj.end - 1
	indent := d.lineIndent(obj.start) + unit
	if len(obj.members) > 0 {
		first := obj.members[0].keyStart
		if ws := d.lineIndent(first); len(bytes.TrimSpace(d.data[first-len(ws):first])) == 0 && bytes.LastIndexByte(d.data[:first], '\n') == first-len(ws)-1 {
			indent = ws
		}
	}
	member, err := renderMember(key, value, indent, unit)
	if err != nil {
		return nil, err
	}
	var out []byte
	if len(obj.members) == 0 {
		inner := d.data[obj.start+1 : closeAt]
		if len(bytes.TrimSpace(inner)) == 0 {
			out = append(out, d.data[:obj.start+1]...)
			out = append(out, "\n"+indent+member+"\n"+d.lineIndent(obj.start)...)
			return append(out, d.data[closeAt:]...), nil
		}
		out = append(out, d.data[:obj.start+1]...)
		out = append(out, "\n"+indent+member...)
		return append(out, d.data[obj.start+1:]...), nil
	}
	last := obj.members[len(obj.members)-1].value.end
	comma := -1
	for _, t := range d.trailing {
		if t >= last && t < closeAt {
			comma = t
		}
	}
	at, text := last, ","
	if comma >= 0 {
		at = comma + 1
		text = ""
	}
	// After a line comment that ends the line, not inside it.
	p := at
	rest := d.data[at:]
	if eol := bytes.IndexByte(rest, '\n'); eol >= 0 {
		line := bytes.TrimSpace(rest[:eol])
		if len(line) == 0 || bytes.HasPrefix(line, []byte("//")) {
			p = at + len(bytes.TrimRight(rest[:eol], " \t\r"))
		}
	}
	out = append(out, d.data[:at]...)
	out = append(out, text...)
	out = append(out, d.data[at:p]...)
	suffix := ""
	if comma >= 0 {
		suffix = ","
	}
	out = append(out, "\n"+indent+member+suffix...)
	return append(out, d.data[p:]...), nil
}

// replaceValue returns the document with the value of m replaced.
func (d *jsonDoc) replaceValue(m *jsonMember, value any) ([]byte, error) {
	member, err := renderMember(m.key, value, d.lineIndent(m.keyStart), d.indentUnit())
	if err != nil {
		return nil, err
	}
	out := slices.Clone(d.data[:m.keyStart])
	out = append(out, member...)
	return append(out, d.data[m.value.end:]...), nil
}
