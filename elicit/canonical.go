package elicit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
)

// maxDepth bounds nesting while canonicalising, so hostile arguments cannot
// exhaust the stack.
const maxDepth = 64

// hashArguments returns the hex SHA-256 of the canonical form of a tool
// call's arguments. Two argument documents hash alike exactly when
// encoding/json (which the command renderer uses) reads them alike: object
// keys are sorted, insignificant whitespace dropped, strings re-escaped;
// numbers keep their literal text. Absent arguments are the empty object.
// Duplicate keys are an error: which one a reader keeps is a matter of
// implementation, and an approval must not depend on that.
func hashArguments(raw json.RawMessage) (string, error) {
	canon, err := canonicalJSON(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

func canonicalJSON(raw []byte) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("{}"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	if err := canonicalValue(dec, &out, 0); err != nil {
		return nil, fmt.Errorf("canonicalising arguments: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("canonicalising arguments: trailing data after the JSON value")
	}
	return out.Bytes(), nil
}

func canonicalValue(dec *json.Decoder, out *bytes.Buffer, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return canonicalObject(dec, out, depth)
		case '[':
			return canonicalArray(dec, out, depth)
		}
		return fmt.Errorf("unexpected %q", t)
	case string:
		return writeString(out, t)
	case json.Number:
		out.WriteString(t.String())
	case bool:
		if t {
			out.WriteString("true")
		} else {
			out.WriteString("false")
		}
	case nil:
		out.WriteString("null")
	default:
		return fmt.Errorf("unexpected token %v", tok)
	}
	return nil
}

func canonicalObject(dec *json.Decoder, out *bytes.Buffer, depth int) error {
	members := map[string][]byte{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key is %v, not a string", tok)
		}
		if _, dup := members[key]; dup {
			return fmt.Errorf("duplicate key %q", key)
		}
		var value bytes.Buffer
		if err := canonicalValue(dec, &value, depth+1); err != nil {
			return err
		}
		members[key] = value.Bytes()
	}
	if _, err := dec.Token(); err != nil { // '}'
		return err
	}
	out.WriteByte('{')
	for i, key := range slices.Sorted(maps.Keys(members)) {
		if i > 0 {
			out.WriteByte(',')
		}
		if err := writeString(out, key); err != nil {
			return err
		}
		out.WriteByte(':')
		out.Write(members[key])
	}
	out.WriteByte('}')
	return nil
}

func canonicalArray(dec *json.Decoder, out *bytes.Buffer, depth int) error {
	out.WriteByte('[')
	for i := 0; dec.More(); i++ {
		if i > 0 {
			out.WriteByte(',')
		}
		if err := canonicalValue(dec, out, depth+1); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		return err
	}
	out.WriteByte(']')
	return nil
}

func writeString(out *bytes.Buffer, s string) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	out.Write(b)
	return nil
}
