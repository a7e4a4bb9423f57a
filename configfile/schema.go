// Package configfile reads configuration files that people write: one YAML
// document, checked against a JSON Schema before anything is decoded, so
// that every mistake is reported by where it is (apps[0].prefix), an
// unknown key with the known key closest to it, and a second document or a
// key YAML does not read as a name is refused rather than ignored.
//
// It does not know what the settings mean, nor where the file comes from:
// the caller names the file (ReadFile bounds its size), may normalise the
// decoded document (aliases), and decodes the JSON that Parse returns.
package configfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/internal/editdist"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled configuration schema.
type Schema struct {
	doc      map[string]any
	compiled *jsonschema.Schema
	help     string
}

// NewSchema compiles doc, a JSON Schema document whose local references are
// "#/$defs/NAME". help ends every description of a mistake and says where
// the settings are documented.
func NewSchema(doc []byte, help string) (*Schema, error) {
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	const url = "config.schema.json"
	if err := c.AddResource(url, parsed); err != nil {
		return nil, err
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	s := &Schema{compiled: compiled, help: help}
	if err := json.Unmarshal(doc, &s.doc); err != nil {
		return nil, err
	}
	return s, nil
}

// Parse decodes raw, the YAML text of one document (an empty one is an
// empty object), hands the decoded value to normalize when it is not nil,
// checks the result against the schema and returns it as JSON.
func (s *Schema) Parse(raw []byte, normalize func(doc any) error) ([]byte, error) {
	doc, err := decodeYAML(raw)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		doc = map[string]any{}
	}
	if normalize != nil {
		if err := normalize(doc); err != nil {
			return nil, err
		}
	}
	// Round-trip through JSON so the validator sees JSON types (json.Number,
	// map[string]any) whatever YAML produced.
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("a value has no JSON form (%w); write plain strings, numbers, booleans and lists", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, err
	}
	if err := s.compiled.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, s.describe(ve)
		}
		return nil, err
	}
	return js, nil
}

// describe turns a schema validation error into one line per
// problem, each naming where it is and, for an unknown key, the key and the
// closest known one.
func (s *Schema) describe(ve *jsonschema.ValidationError) error {
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		lines = append(lines, s.describeLeaf(e))
	}
	walk(ve)
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return fmt.Errorf("%s; %s", strings.Join(lines, "; "), s.help)
}

func (s *Schema) describeLeaf(e *jsonschema.ValidationError) string {
	where := instancePath(e.InstanceLocation)
	if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
		known := s.keysAt(e.InstanceLocation)
		var parts []string
		for _, key := range ap.Properties {
			msg := fmt.Sprintf("unknown key %q", key)
			if where != "" {
				msg += " in " + where
			}
			if c := closest(key, known); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			}
			parts = append(parts, msg)
		}
		return strings.Join(parts, "; ")
	}
	if where == "" {
		where = "the document"
	}
	return fmt.Sprintf("%s: %s", where, e.ErrorKind.LocalizedString(message.NewPrinter(language.English)))
}

// instancePath renders a JSON pointer as apps[0].prefix.
func instancePath(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil {
			fmt.Fprintf(&b, "[%s]", tok)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// keysAt lists the keys the schema allows at an object location of the
// document, following properties, items and local $refs.
func (s *Schema) keysAt(loc []string) []string {
	node := s.deref(s.doc)
	for _, tok := range loc {
		if props, ok := node["properties"].(map[string]any); ok && props[tok] != nil {
			node, _ = props[tok].(map[string]any)
		} else {
			node, _ = node["items"].(map[string]any)
		}
		node = s.deref(node)
	}
	props, _ := node["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

// deref follows a "#/$defs/NAME" reference.
func (s *Schema) deref(node map[string]any) map[string]any {
	ref, _ := node["$ref"].(string)
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return node
	}
	defs, _ := s.doc["$defs"].(map[string]any)
	def, _ := defs[name].(map[string]any)
	return def
}

// closest returns the known key nearest to key by edit distance, or "" when
// none is plausibly what was meant.
func closest(key string, known []string) string {
	best, bestDist := "", len(key)/2+2
	for _, k := range known {
		if d := editdist.Distance(strings.ToLower(key), k, bestDist); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}
