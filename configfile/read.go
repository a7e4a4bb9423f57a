package configfile

import (
	"fmt"
	"io"
	"os"
)

// MaxBytes bounds a configuration file. A configuration is a few settings;
// anything near this size is the wrong file, and reading it whole must not
// cost the server its memory.
const MaxBytes = 1 << 20

// ReadFile reads at most MaxBytes of path; setting names where the path
// came from (e.g. --config) in messages.
func ReadFile(setting, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w; pass a readable YAML file", setting, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w; pass a readable YAML file", setting, err)
	}
	if len(raw) > MaxBytes {
		return nil, fmt.Errorf("config %s is larger than 1 MiB; a configuration is a few settings: check that %s names the right file", path, setting)
	}
	return raw, nil
}
