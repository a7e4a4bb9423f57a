package clients

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

var unsafeKey = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// ServerKey names the server in the client's configuration: name (--name),
// else the single app's prefix or binary name, else fisk-mcp.
func ServerKey(name string, apps []exposure.App) string {
	if name == "" && len(apps) == 1 {
		name = apps[0].Prefix
		if name == "" {
			name = filepath.Base(apps[0].Path)
		}
	}
	name = strings.Trim(unsafeKey.ReplaceAllString(name, "-"), "-")
	if name == "" {
		return "fisk-mcp"
	}
	return name
}

// ParseEnv parses the KEY=VALUE pairs of --env into the environment
// Launch.Env holds.
func ParseEnv(pairs []string) (map[string]string, error) {
	env := map[string]string{}
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--env %q: write KEY=VALUE", kv)
		}
		env[k] = v
	}
	return env, nil
}
