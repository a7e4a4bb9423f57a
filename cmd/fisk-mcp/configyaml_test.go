package main

import (
	"os"
	"path/filepath"
	"slices"
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

func TestSettingsFromTheConfigFileAreNamedByTheirKey(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	cases := []struct {
		name, yaml string
		flags      []string
		want, not  string
	}{
		{"timeout", "timeout: 0s\n", nil, "timeout 0s: give a positive duration", "--timeout"},
		{"elicit timeout", "elicit_timeout: 0s\n", nil, "elicit_timeout 0s: give a positive duration", "--elicit-timeout"},
		{"stateless without http", "stateless: true\n", nil, "stateless only applies to streamable HTTP", "--stateless"},
		{"allow origin without http", "allow_origin: [https://x.example]\n", nil, "allow_origin only applies", "--allow-origin only"},
		{"bad allow host", "http: 127.0.0.1:0\nallow_host: [https://x.example]\n", nil, `allow_host "https://x.example"`, "--allow-host"},
		{"global flag with dashes", "global_flag: [--context]\n", nil, `global_flag "--context": give the flag's name without dashes`, `--global-flag "--context"`},
		{"bad include", "include: ['(']\n", nil, `include "(" is not a valid regular expression`, "--include"},
		{"missing token file", "http: 127.0.0.1:0\ntoken_file: nope\n", nil, "token_file: open", "--token-file:"},
		{"missing state key", "state_key_file: nokey\n", nil, "state_key_file: ", "--state-key-file:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeFile(t, t.TempDir(), "c.yaml", tc.yaml, 0o600)
			_, _, err := parse(t, append(append([]string{"serve", "--config", cfg}, tc.flags...), app)...)
			if err == nil {
				t.Fatal("accepted")
			}
			if want := "config " + cfg + ": " + tc.want; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
			if strings.Contains(err.Error(), tc.not) {
				t.Errorf("error %q names %s, which was not given", err, tc.not)
			}
		})
	}
}

func TestSettingsFromTheCommandLineAreStillNamedByTheirFlag(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	cfg := writeFile(t, dir, "c.yaml", "timeout: 10s\nhttp: 127.0.0.1:0\nallow_host: [ok.example]\ninclude: ['^a']\n", 0o600)
	_, _, err := parse(t, "serve", "--config", cfg, "--timeout", "0s", "--allow-host", "https://bad.example", "--include", "(", app)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"--timeout 0s", `--allow-host "https://bad.example"`, `--include "("`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "config "+cfg) {
		t.Errorf("error %q blames the file for the command line's values", err)
	}
}

func TestConfigFileAppPathWithASlashIsRelativeToTheFileAndABareNameIsLookedUpInPATH(t *testing.T) {
	dir := t.TempDir()
	beside := fakeApp(t, dir, "fx")
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	below := fakeApp(t, filepath.Join(dir, "bin"), "fx")
	onPath := t.TempDir()
	inPath := fakeApp(t, onPath, "fx")
	t.Setenv("PATH", onPath)
	t.Chdir(t.TempDir())

	for _, tc := range []struct{ path, want string }{
		{"fx", inPath},
		{"./fx", beside},
		{"bin/fx", below},
		{beside, beside},
	} {
		cfg := writeFile(t, dir, "c.yaml", "apps: [{path: '"+tc.path+"'}]\n", 0o600)
		c, _, err := parse(t, "tools", "--config", cfg)
		if err != nil {
			t.Errorf("path %q: %v", tc.path, err)
			continue
		}
		if got := c.planned.Apps[0].Path; got != tc.want {
			t.Errorf("path %q resolved to %s, want %s", tc.path, got, tc.want)
		}
	}

	t.Setenv("PATH", t.TempDir())
	cfg := writeFile(t, dir, "c.yaml", "apps: [{path: fx}]\n", 0o600)
	_, _, err := parse(t, "tools", "--config", cfg)
	if err == nil || !strings.Contains(err.Error(), "config "+cfg+": apps[0].path") || !strings.Contains(err.Error(), "write ./fx") {
		t.Errorf("bare name not in PATH: %v, want the entry named and ./fx suggested", err)
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

func TestConfigFileValuesStillApplyAfterTheChecks(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	cfg := writeFile(t, dir, "c.yaml", "---\ntimeout: 7s\nconfirm_tag: impact:rw\n", 0o600)
	c, _, err := parse(t, "serve", "--config", cfg, app)
	if err != nil {
		t.Fatal(err)
	}
	if c.planned.Serving.Server.Timeout != 7*time.Second || !slices.Equal(c.planned.Policy.ConfirmTags, []string{"impact:rw"}) {
		t.Errorf("plan = %+v %+v", c.planned.Serving, c.planned.Policy)
	}
}
