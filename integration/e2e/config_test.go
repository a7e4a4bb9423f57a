package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A configuration whose settings fisk-mcp would not apply, or would name
// wrongly, stops serve before anything starts.
func TestConfigFileMistakesStopServeNamingTheFileAndKey(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"a second document", "timeout: 10s\n---\nconfirm_tag: [impact:rw]\n", []string{"line 2", "second YAML document"}},
		{"a zero timeout", "timeout: 0s\n", []string{": timeout 0s: give a positive duration"}},
		{"a key that is not a name", "1: x\n", []string{`line 1: key "1" is a number`}},
		{"a count too large", "concurrency: 99999999999999999999\n", []string{"concurrency: the number is out of range"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(dir, string(rune('a'+i))+".yaml")
			if err := os.WriteFile(cfg, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runFiskMCP(t, nil, "serve", "--config", cfg, fixtureBin)
			if code == 0 || out != "" {
				t.Fatalf("exit %d, stdout %q; stderr:\n%s", code, out, errOut)
			}
			for _, w := range append(tc.want, "config "+cfg) {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, errOut)
				}
			}
			if strings.Contains(errOut, "--timeout") || strings.Contains(errOut, "json:") {
				t.Errorf("stderr names a flag not given or leaks a Go error:\n%s", errOut)
			}
		})
	}
}
