package testsupport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ToolCacheEnv names the directory where tests keep the outside tools
// they build or install (the nats CLI, npm packages) between runs. Main
// sets it, before it moves HOME away, to fisk-mcp-test-tools under the
// person's own cache directory, unless it is set already.
const ToolCacheEnv = "FISK_MCP_TEST_TOOLS"

// ToolCache is the directory ToolCacheEnv names, or, in a test binary
// that did not run Main, the same default.
func ToolCache() string {
	if dir := os.Getenv(ToolCacheEnv); dir != "" {
		return dir
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "fisk-mcp-test-tools")
}

// isolateHome points HOME and the XDG base directories at fresh
// directories under dir, for this process and everything it starts, so
// that no test reads or writes the person's own configuration or cache:
// a fisk-mcp a test starts sees a home of its own. What makes runs fast
// stays shared: the Go build and module caches, npm's cache and the test
// tool cache (see ToolCacheEnv) are fixed to where they were before.
func isolateHome(dir string) error {
	shared := map[string]string{ToolCacheEnv: ToolCache()}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return fmt.Errorf("reading the Go caches' places: %w", err)
	}
	for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		shared[[]string{"GOCACHE", "GOMODCACHE", "GOPATH"}[i]] = v
	}
	if home, err := os.UserHomeDir(); err == nil {
		shared["npm_config_cache"] = filepath.Join(home, ".npm")
	}
	for k, v := range shared {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"} {
		d := filepath.Join(dir, strings.ToLower(k))
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
		os.Setenv(k, d)
	}
	return nil
}
