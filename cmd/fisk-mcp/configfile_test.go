package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/plan"
)

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
	for _, re := range p.Policy.Include {
		inc = append(inc, re.String())
	}
	if !slices.Equal(inc, []string{"^a", "^b"}) {
		t.Errorf("include = %v: the file's list extended by the flags", inc)
	}
	sp := p.Serving
	if sp.Server.Timeout != 5*time.Second || sp.Server.Concurrency != 8 || sp.Approval.Timeout != time.Minute {
		t.Errorf("limits = %+v", sp)
	}
	if sp.Watch || sp.Server.Name != "from-flag" || sp.HTTP.Addr != "127.0.0.1:0" || p.Policy.Schema != "full" {
		t.Errorf("overrides = %+v schema=%s", sp, p.Policy.Schema)
	}
	if !slices.Equal(p.Policy.ConfirmTags, []string{"ops:prod"}) {
		t.Errorf("confirm tags = %v", p.Policy.ConfirmTags)
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
	if c.planned.Apps[0].Path != app || c.planned.Serving.HTTP.Token != "a-long-enough-token" {
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

func TestConfigFileAppSelectionAppliesToThatAppOnly(t *testing.T) {
	dir := t.TempDir()
	first := fakeApp(t, dir, "first")
	second := fakeApp(t, dir, "second")
	cfg := writeFile(t, dir, "c.yaml", `
include: ["^a"]
exclude_tag: ai:experimental
apps:
  - path: ./first
    include: ["^a_", "^b_"]
    exclude: "_delete$"
    include_tags: [impact:ro, ""]
    exclude_tag: ops:prod
  - path: ./second
`, 0o600)
	c, _, err := parse(t, "tools", "--config", cfg, "--exclude", "^z")
	if err != nil {
		t.Fatal(err)
	}
	p := c.planned
	if len(p.Apps) != 2 || p.Apps[0].Path != first || p.Apps[1].Path != second {
		t.Fatalf("apps = %+v", p.Apps)
	}
	a, b := p.Apps[0], p.Apps[1]
	if got := exprs(a.Include); !slices.Equal(got, []string{"^a_", "^b_"}) {
		t.Errorf("first app include = %v", got)
	}
	if got := exprs(a.Exclude); !slices.Equal(got, []string{"_delete$"}) {
		t.Errorf("first app exclude = %v", got)
	}
	if !slices.Equal(a.IncludeTags, []string{"impact:ro", ""}) || !slices.Equal(a.ExcludeTags, []string{"ops:prod"}) {
		t.Errorf("first app tags = %q %q", a.IncludeTags, a.ExcludeTags)
	}
	if len(b.Include)+len(b.Exclude)+len(b.IncludeTags)+len(b.ExcludeTags) != 0 {
		t.Errorf("second app has a selection: %+v", b)
	}
	// The shared selection is untouched by the apps' own.
	if got := exprs(p.Policy.Include); !slices.Equal(got, []string{"^a"}) {
		t.Errorf("shared include = %v", got)
	}
	if got := exprs(p.Policy.Exclude); !slices.Equal(got, []string{"^z"}) {
		t.Errorf("shared exclude = %v", got)
	}
	if !slices.Equal(p.Policy.ExcludeTags, []string{"ai:experimental"}) {
		t.Errorf("shared exclude tags = %v", p.Policy.ExcludeTags)
	}

	// The loader hands each app its own selection.
	l := plan.NewLoader(p)
	if got := exprs(l.Apps[0].Include); !slices.Equal(got, []string{"^a_", "^b_"}) || !slices.Equal(l.Apps[0].ExcludeTags, []string{"ops:prod"}) {
		t.Errorf("loader app = %+v", l.Apps[0])
	}
	if len(l.Apps[1].Include) != 0 || len(l.Policy.Include) != 1 {
		t.Errorf("loader second app %+v, policy include %v", l.Apps[1], l.Policy.Include)
	}
}

func exprs(res []*regexp.Regexp) []string {
	var out []string
	for _, re := range res {
		out = append(out, re.String())
	}
	return out
}

func TestConfigFileAppSelectionMistakesNameTheEntry(t *testing.T) {
	dir := t.TempDir()
	fakeApp(t, dir, "tool")
	cfg := writeFile(t, dir, "c.yaml", "apps:\n  - path: ./tool\n  - path: ./tool\n    exclude: ['([']\n", 0o600)
	_, _, err := parse(t, "tools", "--config", cfg)
	if err == nil || !strings.Contains(err.Error(), `apps[1].exclude "(["`) || !strings.Contains(err.Error(), "not a valid regular expression") {
		t.Errorf("err = %v, want one naming apps[1].exclude", err)
	}
}

// TestConfigFileAppExcludeSettlesACollision runs tools against two
// unprefixed copies of the fixture application: without a per-app
// selection every name collides; with one app excluding what the other
// includes, the set loads.
func TestConfigFileAppExcludeSettlesACollision(t *testing.T) {
	bin, cleanup, err := testsupport.BuildFixture()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	run := func(yaml string) (string, error) {
		cfg := writeFile(t, t.TempDir(), "c.yaml", yaml, 0o600)
		var stdout, stderr bytes.Buffer
		c := newCLI(t.Context(), &stdout, &stderr)
		_, err := c.app.Parse([]string{"tools", "--json", "--config", cfg})
		return stdout.String(), err
	}
	if _, err := run(fmt.Sprintf("apps: [{path: %q}, {path: %q}]\n", bin, bin)); err == nil || !strings.Contains(err.Error(), "claimed by both") {
		t.Fatalf("unsettled apps: err = %v, want a collision", err)
	}
	out, err := run(fmt.Sprintf("apps:\n  - {path: %q, exclude: '^echo$'}\n  - {path: %q, include: '^echo$'}\n", bin, bin))
	if err != nil {
		t.Fatalf("settled apps: %v", err)
	}
	var doc struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("tools --json: %v\n%s", err, out)
	}
	var got []string
	for _, tool := range doc.Tools {
		got = append(got, tool.Name)
	}
	if len(got) != 16 || !slices.Contains(got, "echo") || !slices.Contains(got, "env") {
		t.Errorf("tools = %v, want the fixture's 16 once each", got)
	}
}
