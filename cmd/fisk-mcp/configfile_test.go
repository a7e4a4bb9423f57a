package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestConfigFileTypoNamesTheKey(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"top-level key", "timout: 30s\n", []string{`unknown key "timout"`, `did you mean "timeout"`}},
		{"app key", "apps:\n  - path: /bin/true\n    pefix: x\n", []string{`unknown key "pefix" in apps[0]`, `did you mean "prefix"`}},
		{"no suggestion for nonsense", "zzzzzzzzzzzz: 1\n", []string{`unknown key "zzzzzzzzzzzz"`}},
		{"wrong type", "concurrency: four\n", []string{"concurrency", "integer"}},
		{"bad enum", "schema: bogus\n", []string{"schema", "restricted"}},
		{"bad duration", "elicit_timeout: soon\n", []string{"elicit_timeout"}},
		{"app without path", "apps:\n  - prefix: x\n", []string{"apps[0]", "path"}},
		{"bad prefix", "apps:\n  - path: /bin/true\n    prefix: 'a b'\n", []string{"apps[0].prefix"}},
		{"not yaml", "apps: [\n", []string{"not valid YAML"}},
		{"not an object", "- a\n- b\n", []string{"object"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig([]byte(tc.yaml))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if tc.name == "no suggestion for nonsense" && strings.Contains(err.Error(), "did you mean") {
				t.Errorf("suggested something for nonsense: %v", err)
			}
		})
	}
}

func TestConfigFileTypoFailsServeBeforeAnythingStarts(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	cfg := writeFile(t, dir, "c.yaml", "concurency: 3\n", 0o600)
	c, _, err := parse(t, "serve", "--config", cfg, app)
	if err == nil || !strings.Contains(err.Error(), `unknown key "concurency"`) || !strings.Contains(err.Error(), cfg) {
		t.Fatalf("err = %v", err)
	}
	if c.planned != nil {
		t.Error("planned despite a bad config")
	}
}

func TestEmptyConfigFileIsValid(t *testing.T) {
	cfg, err := parseConfig([]byte("# nothing\n"))
	if err != nil || cfg == nil {
		t.Fatalf("cfg=%v err=%v", cfg, err)
	}
}

func TestFlagsOverrideAndExtendTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	fromFile := fakeApp(t, dir, "filetool")
	fromFlag := fakeApp(t, dir, "flagtool")
	cfg := writeFile(t, dir, "c.yaml", `
apps:
  - path: ./filetool
    prefix: f
    global_flags: [server]
include: ["^a"]
confirm_tags: [ops:prod]
global_flags: [context]
timeout: 10s
concurrency: 8
elicit_timeout: 1m
schema: full
name: from-file
watch: true
http: 127.0.0.1:0
`, 0o600)
	c, _, err := parse(t, "serve", "--config", cfg, "--include", "^b", "--timeout", "5s", "--no-watch", "--name", "from-flag", "--global-flag", "password", fromFlag)
	if err != nil {
		t.Fatal(err)
	}
	p := c.planned
	if len(p.Apps) != 2 || p.Apps[0].Path != fromFile || p.Apps[0].Prefix != "f" || p.Apps[1].Path != fromFlag {
		t.Fatalf("apps = %+v", p.Apps)
	}
	if want := []string{"context", "password", "server"}; !slices.Equal(p.Apps[0].Globals, want) {
		t.Errorf("file app globals = %v, want %v", p.Apps[0].Globals, want)
	}
	if want := []string{"context", "password"}; !slices.Equal(p.Apps[1].Globals, want) {
		t.Errorf("flag app globals = %v, want %v", p.Apps[1].Globals, want)
	}
	var inc []string
	for _, re := range p.Selection.Include {
		inc = append(inc, re.String())
	}
	if !slices.Equal(inc, []string{"^a", "^b"}) {
		t.Errorf("include = %v: the file's list extended by the flags", inc)
	}
	sp := p.Serving
	if sp.Timeout != 5*time.Second || sp.Concurrency != 8 || sp.ElicitTimeout != time.Minute {
		t.Errorf("limits = %+v", sp)
	}
	if sp.Watch || sp.Name != "from-flag" || sp.HTTP != "127.0.0.1:0" || p.Selection.Schema != "full" {
		t.Errorf("overrides = %+v schema=%s", sp, p.Selection.Schema)
	}
	if !slices.Equal(p.Selection.ConfirmTags, []string{"ops:prod"}) {
		t.Errorf("confirm tags = %v", p.Selection.ConfirmTags)
	}
}

func TestConfigFilePathsAreRelativeToTheFile(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	writeFile(t, dir, "token", "a-long-enough-token", 0o600)
	cfg := writeFile(t, dir, "c.yaml", "apps: [{path: ./tool}]\nhttp: 127.0.0.1:0\ntoken_file: token\n", 0o600)
	t.Chdir(t.TempDir()) // somewhere else entirely
	c, _, err := parse(t, "serve", "--config", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.planned.Apps[0].Path != app || c.planned.Serving.Token != "a-long-enough-token" {
		t.Errorf("plan = %+v %+v", c.planned.Apps, c.planned.Serving)
	}
}

func TestToolsIgnoresServingSettingsInTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	fakeApp(t, dir, "tool")
	cfg := writeFile(t, dir, "c.yaml", "apps: [{path: ./tool}]\nstateless: true\n", 0o600)
	c, _, err := parse(t, "tools", "--config", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.planned.Serving != nil {
		t.Error("tools resolved serving settings")
	}
}

func TestConfigFileAcceptsPluralKeysAndSingleStrings(t *testing.T) {
	cfg, err := parseConfig([]byte(`
confirm_tags: [ops:prod, impact:rw]
exclude_tag: ai:experimental
global_flags: context
scrub_env: MY_TOKEN
apps:
  - path: /bin/true
    global_flags: [server]
`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.ConfirmTags, []string{"ops:prod", "impact:rw"}) || !slices.Equal(cfg.ExcludeTags, []string{"ai:experimental"}) {
		t.Errorf("tags = %v %v", cfg.ConfirmTags, cfg.ExcludeTags)
	}
	if !slices.Equal(cfg.GlobalFlags, []string{"context"}) || !slices.Equal(cfg.ScrubEnv, []string{"MY_TOKEN"}) {
		t.Errorf("lists = %v %v", cfg.GlobalFlags, cfg.ScrubEnv)
	}
	if !slices.Equal(cfg.Apps[0].GlobalFlags, []string{"server"}) {
		t.Errorf("app globals = %v", cfg.Apps[0].GlobalFlags)
	}
	if _, err := parseConfig([]byte("confirm_tag: [a]\nconfirm_tags: [b]\n")); err == nil || !strings.Contains(err.Error(), "keep one") {
		t.Errorf("both spellings: %v", err)
	}
}
