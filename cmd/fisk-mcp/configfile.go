package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// configSchemaJSON is the contract of the configuration file. Validating
// against it before decoding is what lets a typo name the key it got wrong.
//
//go:embed config.schema.json
var configSchemaJSON []byte

// fileConfig is the decoded configuration file: the values of the settings
// it sets, in a plan of their own, and its apps.
type fileConfig struct {
	values *plan           // with the serving part, whatever the command
	keys   map[string]bool // the keys the file sets
	Apps   []fileApp
}

// fileApp is one entry of apps: in the configuration file. Its selection
// (include, exclude, include_tag, exclude_tag) applies to this app only, in
// addition to the top-level one; it exists only in the file, because an APP
// argument has no room for it.
type fileApp struct {
	Path        string   `json:"path"`
	Prefix      string   `json:"prefix"`
	GlobalFlags []string `json:"global_flag"`
	Include     []string `json:"include"`
	Exclude     []string `json:"exclude"`
	IncludeTags []string `json:"include_tag"`
	ExcludeTags []string `json:"exclude_tag"`
}

var configSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(configSchemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	const url = "config.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// loadConfigFile reads, validates and decodes a YAML configuration file.
// Relative file paths in it are relative to the file's directory, so a
// configuration means the same thing from any working directory; an app
// path without a slash is a name looked up in PATH, as on the command line.
func loadConfigFile(path string) (*fileConfig, error) {
	raw, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := parseConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) || !strings.ContainsRune(p, '/') {
			// A bare name (no slash) is looked up in PATH, like on the command line.
			return p
		}
		return filepath.Join(dir, p)
	}
	for i := range cfg.Apps {
		cfg.Apps[i].Path = rel(cfg.Apps[i].Path)
	}
	for _, s := range settings {
		if p, ok := s.at(cfg.values).(*string); ok && s.path && cfg.keys[s.key()] && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	return cfg, nil
}

// parseConfig validates YAML text against the configuration schema and
// decodes it.
func parseConfig(raw []byte) (*fileConfig, error) {
	doc, err := decodeYAML(raw)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		doc = map[string]any{}
	}
	if err := normalizeConfig(doc); err != nil {
		return nil, err
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
	sch, err := configSchema()
	if err != nil {
		return nil, fmt.Errorf("compiling the built-in configuration schema: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, describeViolations(ve)
		}
		return nil, err
	}
	return decodeConfig(js)
}

// decodeConfig decodes a document the schema accepted: each key into the
// field of the setting it names, apps into fileApp.
func decodeConfig(js []byte) (*fileConfig, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(js, &doc); err != nil {
		return nil, err
	}
	cfg := &fileConfig{values: newPlan(true), keys: map[string]bool{}}
	if raw, ok := doc["apps"]; ok {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg.Apps); err != nil {
			return nil, describeTypeError("apps", err)
		}
	}
	for _, s := range settings {
		raw, ok := doc[s.key()]
		if !ok || s.flagOnly {
			continue
		}
		cfg.keys[s.key()] = true
		target := s.at(cfg.values)
		d, isDuration := target.(*time.Duration)
		if !isDuration {
			if err := json.Unmarshal(raw, target); err != nil {
				return nil, describeTypeError(s.key(), err)
			}
			continue
		}
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, describeTypeError(s.key(), err)
		}
		v, err := time.ParseDuration(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; write a duration such as 30s or 2m", s.key(), err)
		}
		*d = v
	}
	return cfg, nil
}

// describeViolations turns a schema validation error into one line per
// problem, each naming where it is and, for an unknown key, the key and the
// closest known one.
func describeViolations(ve *jsonschema.ValidationError) error {
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		lines = append(lines, describeLeaf(e))
	}
	walk(ve)
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return fmt.Errorf("%s; see fisk-mcp serve --help for the settings", strings.Join(lines, "; "))
}

func describeLeaf(e *jsonschema.ValidationError) string {
	where := instancePath(e.InstanceLocation)
	if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
		known := knownKeys(e.InstanceLocation)
		var parts []string
		for _, key := range ap.Properties {
			msg := fmt.Sprintf("unknown key %q", key)
			if where != "" {
				msg += " in " + where
			}
			if s := closest(key, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
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

// knownKeys lists the keys allowed at an object location of the schema.
func knownKeys(loc []string) []string {
	var sch struct {
		Properties map[string]any `json:"properties"`
		Defs       struct {
			App struct {
				Properties map[string]any `json:"properties"`
			} `json:"app"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(configSchemaJSON, &sch); err != nil {
		return nil
	}
	props := sch.Properties
	if len(loc) > 0 && loc[0] == "apps" {
		props = sch.Defs.App.Properties
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// closest returns the known key nearest to key by edit distance, or "" when
// none is plausibly what was meant.
func closest(key string, known []string) string {
	best, bestDist := "", len(key)/2+2
	for _, k := range known {
		if d := editDistance(strings.ToLower(key), k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// normalizeConfig accepts the plural spelling of a list key (confirm_tags
// for confirm_tag) and a single string where a list is expected, so a
// configuration reads naturally; everything else is left to the schema.
func normalizeConfig(doc any) error {
	top, ok := doc.(map[string]any)
	if !ok {
		return nil // the schema reports the wrong type
	}
	if err := normalizeObject(top, ""); err != nil {
		return err
	}
	if apps, ok := top["apps"].([]any); ok {
		for i, a := range apps {
			if app, ok := a.(map[string]any); ok {
				if err := normalizeObject(app, fmt.Sprintf("apps[%d].", i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func normalizeObject(obj map[string]any, where string) error {
	for _, s := range settings {
		if !s.isList() {
			continue
		}
		key, plural := s.key(), s.key()+"s"
		if v, ok := obj[plural]; ok && !s.singular {
			if _, both := obj[key]; both {
				return fmt.Errorf("both %s%s and %s%s are set; they are the same setting, keep one", where, key, where, plural)
			}
			obj[key] = v
			delete(obj, plural)
		}
		if v, ok := obj[key].(string); ok {
			obj[key] = []any{v}
		}
	}
	return nil
}
