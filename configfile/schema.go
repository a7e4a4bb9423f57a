// Package configfile reads configuration files that people write: one YAML
// document, checked against a JSON Schema before anything is decoded, so
// that every mistake is reported by its line and where it is
// (apps[0].prefix), an unknown key with the known key closest to it, and a
// second document or a key YAML does not read as a name is refused rather
// than ignored.
//
// It does not know what the settings mean, nor where the file comes from:
// the caller names the file (ReadFile bounds its size), may normalise the
// decoded document (aliases), and decodes the JSON that Parse returns.
package configfile

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/internal/editdist"
	"github.com/fisk-mcp/fisk-mcp/internal/visible"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
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
	doc, node, err := decodeYAML(raw)
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
			return nil, s.describe(ve, node)
		}
		return nil, err
	}
	return js, nil
}

// maxMistakes bounds the mistakes one error describes: a file of
// thousands of bad entries needs its first few fixed, not a message as
// large as the file.
const maxMistakes = 10

// describe turns a schema validation error into one line per problem, in
// the order of the file, each naming its line and where it is and, for an
// unknown key, the key and the closest known one.
func (s *Schema) describe(ve *jsonschema.ValidationError, node *yaml.Node) error {
	type mistake struct {
		line int
		text string
	}
	var found []mistake
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if _, names := e.ErrorKind.(*kind.PropertyNames); len(e.Causes) > 0 && !names {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		s.describeLeaf(e, node, func(line int, text string) { found = append(found, mistake{line, text}) })
	}
	walk(ve)
	slices.SortFunc(found, func(a, b mistake) int { return cmp.Or(a.line-b.line, strings.Compare(a.text, b.text)) })
	found = slices.Compact(found)
	var lines []string
	for i, m := range found {
		if i == maxMistakes {
			lines = append(lines, fmt.Sprintf("and %d more", len(found)-i))
			break
		}
		if m.line > 0 {
			m.text = fmt.Sprintf("line %d: %s", m.line, m.text)
		}
		lines = append(lines, m.text)
	}
	return fmt.Errorf("%s; %s", strings.Join(lines, "; "), s.help)
}

// describeLeaf says what is wrong where. The schema node that failed may
// carry an errorMessage, a string or one by keyword ({"maxLength": ...}),
// which then says it instead of the validator (a mistake of type, length
// or pattern; unknown and missing keys are described here).
func (s *Schema) describeLeaf(e *jsonschema.ValidationError, node *yaml.Node, add func(line int, text string)) {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		known := s.keysAt(loc)
		for _, key := range k.Properties {
			msg := "unknown key " + quote(key)
			if where := instancePath(loc); where != "" {
				msg += " in " + where
			}
			if c := closest(key, known); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			}
			add(lineOf(node, append(slices.Clip(loc), key), true), msg)
		}
		return
	case *kind.Required:
		for _, key := range k.Missing {
			add(lineOf(node, loc, false), prefix(instancePath(loc), key+" is missing"))
		}
		return
	case *kind.PropertyNames: // a leaf, described by what its name broke
		loc = append(namesLocation(e), k.Property)
		if len(e.Causes) > 0 {
			e = e.Causes[0]
		}
	}
	var msg string
	switch m := s.at(e.SchemaURL)["errorMessage"].(type) {
	case string:
		msg = m
	case map[string]any: // by keyword: {"maxLength": "..."}
		if kw := e.ErrorKind.KeywordPath(); len(kw) > 0 {
			msg, _ = m[kw[0]].(string)
		}
	}
	if msg == "" {
		msg = e.ErrorKind.LocalizedString(message.NewPrinter(language.English))
	}
	add(lineOf(node, loc, true), prefix(instancePath(loc), msg))
}

// namesLocation is where the object whose key broke a propertyNames
// schema is. jsonschema v6.0.3 gives such an error the validator's own
// location slice, which validating a sibling key later overwrites, so it
// is read from the schema's location instead when that is a chain of
// properties (/properties/commands/propertyNames is commands), and taken
// from the error otherwise.
func namesLocation(e *jsonschema.ValidationError) []string {
	_, ptr, _ := strings.Cut(e.SchemaURL, "#")
	toks := strings.Split(strings.TrimPrefix(strings.TrimSuffix(ptr, "/propertyNames"), "/"), "/")
	if len(toks) == 1 && toks[0] == "" {
		return nil
	}
	var loc []string
	for i := 0; i < len(toks); i += 2 {
		if toks[i] != "properties" || i+1 == len(toks) {
			return slices.Clone(e.InstanceLocation)
		}
		loc = append(loc, strings.NewReplacer("~1", "/", "~0", "~").Replace(toks[i+1]))
	}
	return loc
}

func prefix(where, msg string) string {
	if where == "" {
		return msg
	}
	return where + ": " + msg
}

// at returns the schema node at url, "NAME#/json/pointer".
func (s *Schema) at(url string) map[string]any {
	_, ptr, _ := strings.Cut(url, "#")
	node := s.doc
	for tok := range strings.SplitSeq(strings.TrimPrefix(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		node, _ = node[tok].(map[string]any)
	}
	return node
}

// quote quotes a name from the file for a message: cut, its control and
// formatting characters escaped.
func quote(s string) string { return strconv.Quote(visible.Cut(s, 80)) }

// instancePath renders a JSON pointer as apps[0].prefix.
func instancePath(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil {
			fmt.Fprintf(&b, "[%s]", tok)
			continue
		}
		if !plainName(tok) {
			fmt.Fprintf(&b, "[%s]", quote(tok))
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(visible.Cut(tok, 80))
	}
	return b.String()
}

// plainName reports whether key reads unquoted in a path: letters,
// digits, _ and -.
func plainName(key string) bool {
	return key != "" && strings.IndexFunc(key, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0
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
