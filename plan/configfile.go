package plan

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fisk-mcp/fisk-mcp/configfile"
	"github.com/fisk-mcp/fisk-mcp/settings"
)

// configSchemaJSON is the contract of the configuration file. Validating
// against it before decoding is what lets a typo name the key it got wrong.
//
//go:embed config.schema.json
var configSchemaJSON []byte

// fileConfig is the decoded configuration file: the values of the settings
// it sets, in a plan of their own, and its apps.
type fileConfig struct {
	values *Plan         // with the serving part, whatever the command
	set    *settings.Set // values' settings; InFile says which the file sets
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
	raw, err := configfile.ReadFile("--config", path, configfile.MaxBytes)
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
	cfg.set.RelativeTo(dir)
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
	values := New(true)
	cfg := &fileConfig{values: values, set: values.set}
	if raw, ok := doc["apps"]; ok {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg.Apps); err != nil {
			return nil, fmt.Errorf("apps: %w", err)
		}
	}
	if err := cfg.set.Decode(doc); err != nil {
		return nil, err
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
	set := New(true).set
	if err := set.Normalize(top, ""); err != nil {
		return err
	}
	if apps, ok := top["apps"].([]any); ok {
		for i, a := range apps {
			if app, ok := a.(map[string]any); ok {
				if err := set.Normalize(app, fmt.Sprintf("apps[%d].", i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
