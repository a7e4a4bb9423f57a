package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/fisk-mcp/fisk-mcp/configfile"
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

var configSchema = sync.OnceValues(func() (*configfile.Schema, error) {
	return configfile.NewSchema(configSchemaJSON, "see fisk-mcp serve --help for the settings")
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
	sch, err := configSchema()
	if err != nil {
		return nil, fmt.Errorf("compiling the built-in configuration schema: %w", err)
	}
	js, err := sch.Parse(raw, normalizeConfig)
	if err != nil {
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

// maxConfigBytes bounds the configuration file. A configuration is a few
// settings; anything near this size is the wrong file, and reading it whole
// must not cost the server its memory.
const maxConfigBytes = 1 << 20

// readConfigFile reads at most maxConfigBytes of path.
func readConfigFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading --config: %w; pass a readable YAML file", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading --config: %w; pass a readable YAML file", err)
	}
	if len(raw) > maxConfigBytes {
		return nil, fmt.Errorf("config %s is larger than 1 MiB; a configuration is a few settings: check that --config names the right file", path)
	}
	return raw, nil
}

// describeTypeError names the key and the expected type when a value passed
// the schema but does not fit its Go type (an integer too large for int).
func describeTypeError(key string, err error) error {
	var ute *json.UnmarshalTypeError
	if !errors.As(err, &ute) {
		return err
	}
	if ute.Type.Kind() == reflect.Int {
		// The value is not repeated: YAML has read it as a float, so
		// it would be shown rounded, not as written. The file's only
		// integers are counts of at least 1.
		return fmt.Errorf("%s: the number is out of range: expected an integer from 1 to %d", key, math.MaxInt)
	}
	return fmt.Errorf("%s: expected %s, got %s", key, ute.Type, ute.Value)
}
