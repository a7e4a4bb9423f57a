package plan

import (
	"slices"
	"strings"
	"testing"
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

func TestEmptyConfigFileIsValid(t *testing.T) {
	cfg, err := parseConfig([]byte("# nothing\n"))
	if err != nil || cfg == nil {
		t.Fatalf("cfg=%v err=%v", cfg, err)
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
	if v := cfg.values.Policy; !slices.Equal(v.ConfirmTags, []string{"ops:prod", "impact:rw"}) || !slices.Equal(v.ExcludeTags, []string{"ai:experimental"}) {
		t.Errorf("tags = %v %v", v.ConfirmTags, v.ExcludeTags)
	}
	if v := cfg.values; !slices.Equal(v.globalFlags, []string{"context"}) || !slices.Equal(v.ScrubEnv, []string{"MY_TOKEN"}) {
		t.Errorf("lists = %v %v", v.globalFlags, v.ScrubEnv)
	}
	if !slices.Equal(cfg.Apps[0].GlobalFlags, []string{"server"}) {
		t.Errorf("app globals = %v", cfg.Apps[0].GlobalFlags)
	}
	if _, err := parseConfig([]byte("confirm_tag: [a]\nconfirm_tags: [b]\n")); err == nil || !strings.Contains(err.Error(), "keep one") {
		t.Errorf("both spellings: %v", err)
	}
}

func TestConfigFileAppKeyMistakesNameTheEntry(t *testing.T) {
	if _, err := parseConfig([]byte("apps:\n  - path: /bin/true\n    exlude: x\n")); err == nil || !strings.Contains(err.Error(), `did you mean "exclude"`) {
		t.Errorf("typo: %v", err)
	}
	if _, err := parseConfig([]byte("apps:\n  - path: /bin/true\n    include: ['']\n")); err == nil || !strings.Contains(err.Error(), "apps[0].include") {
		t.Errorf("empty expression: %v", err)
	}
}
