package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/configfile"
)

func TestConfigFileWithASecondDocumentIsRefused(t *testing.T) {
	_, err := parseConfig([]byte("timeout: 10s\n---\nconfirm_tag: [impact:rw]\n"))
	if err == nil {
		t.Fatal("a confirm_tag in a second document was accepted, and would have been ignored")
	}
	for _, want := range []string{"line 2", "second YAML document", "would not apply"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestConfigFileEmptyDocumentsAroundTheOneAreAccepted(t *testing.T) {
	for _, doc := range []string{
		"---\ntimeout: 10s\n",
		"timeout: 10s\n---\n",
		"timeout: 10s\n---\n# nothing more\n",
		"---\n---\ntimeout: 10s\n...\n",
	} {
		cfg, err := parseConfig([]byte(doc))
		if err != nil {
			t.Errorf("%q: %v", doc, err)
			continue
		}
		if !cfg.set.InFile("timeout") || cfg.values.Serving.Server.Timeout != 10*time.Second {
			t.Errorf("%q: timeout = %v, want 10s", doc, cfg.values.Serving.Server.Timeout)
		}
	}
}

func TestConfigFileKeyThatIsNotAStringIsNamedWithItsLine(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"1: x\n", `line 1: key "1" is a number`},
		{"apps:\n  - path: /bin/true\n    true: 2\n", `line 3: key "true" is a boolean`},
		{"timeout: 1s\n~: x\n", `line 2: key "~" is null`},
		{"? [a, b]\n: x\n", "line 1: key at column 3 is a list"},
	}
	for _, tc := range cases {
		_, err := parseConfig([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "quote the key") {
			t.Errorf("%q: error %v, want one saying %q", tc.yaml, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "json:") {
			t.Errorf("%q: a Go encoding error leaks: %v", tc.yaml, err)
		}
	}
}

func TestConfigFileIntegerTooLargeNamesTheKeyAndTheType(t *testing.T) {
	_, err := parseConfig([]byte("concurrency: 99999999999999999999\n"))
	if err == nil {
		t.Fatal("accepted")
	}
	want := "concurrency: the number is out of range: expected an integer from 1 to"
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "Go struct") {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestConfigFileOverOneMiBIsRefused(t *testing.T) {
	dir := t.TempDir()
	fits := writeFile(t, dir, "fits.yaml", "timeout: 5s\n"+strings.Repeat("#", configfile.MaxBytes-len("timeout: 5s\n")), 0o600)
	if cfg, err := loadConfigFile(fits); err != nil || cfg.values.Serving.Server.Timeout != 5*time.Second {
		t.Errorf("a file of exactly 1 MiB: %v", err)
	}
	big := writeFile(t, dir, "big.yaml", strings.Repeat("#", configfile.MaxBytes+1), 0o600)
	_, err := loadConfigFile(big)
	if err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") || !strings.Contains(err.Error(), big) {
		t.Errorf("error = %v, want the 1 MiB limit naming the file", err)
	}
}

func TestConfigSchemaSaysHowAppPathsResolve(t *testing.T) {
	doc := string(configSchemaJSON)
	for _, want := range []string{"relative to the directory of this file", "looked up in PATH"} {
		if !strings.Contains(doc, want) {
			t.Errorf("config.schema.json does not say %q", want)
		}
	}
	if strings.Contains(doc, "relative paths are relative to this file") {
		t.Error("config.schema.json still says every relative path is relative to the file")
	}
}

func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return path
}
