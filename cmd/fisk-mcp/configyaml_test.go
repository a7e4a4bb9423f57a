package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

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
