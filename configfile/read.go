package configfile

import (
	"fmt"
	"io"
	"os"
)

// MaxBytes bounds a configuration file: a configuration is a few settings.
const MaxBytes = 1 << 20

// ReadFile reads path whole, refusing one larger than limit bytes: a file
// people write is small, anything near the limit is the wrong file, and
// reading it whole must not cost the server its memory. setting names
// where the path came from (e.g. --config) in messages.
func ReadFile(setting, path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w; pass a readable YAML or JSON file", setting, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w; pass a readable YAML or JSON file", setting, err)
	}
	if len(raw) > limit {
		return nil, fmt.Errorf("%s %s is larger than %d MiB; check that it names the right file", setting, path, limit>>20)
	}
	return raw, nil
}
