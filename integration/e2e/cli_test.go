package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolsPrintsAReadableTable(t *testing.T) {
	out, errOut, code := runFiskMCP(t, nil, "tools", "--confirm-tag", "ops:prod", "--confirm-tag", "typo:tag", "--read-only-tag", "impact:ro", fixtureBin)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	header := strings.Fields(lines[0])
	if !slices.Equal(header, []string{"NAME", "APP", "BEHAVIOUR", "GATE", "TAGS", "DESCRIPTION"}) {
		t.Fatalf("header = %q", lines[0])
	}
	rows := map[string]string{}
	for _, l := range lines[1:] {
		if f := strings.Fields(l); len(f) > 0 {
			rows[f[0]] = l
		}
	}
	for _, name := range fixtureTools {
		if rows[name] == "" {
			t.Errorf("no row for %s", name)
		}
	}
	if rows["admin_purge"] != "" {
		t.Error("the ai:deny tool is listed")
	}
	for name, want := range map[string]*regexp.Regexp{
		"touch":             regexp.MustCompile(`^touch\s+fisk-fixture\s+additive\s+ai:confirm\s+ai:confirm,ai:additive\s+Create a file`),
		"deploy":            regexp.MustCompile(`^deploy\s+fisk-fixture\s+destructive\s+ops:prod\s+`),
		"admin_user_delete": regexp.MustCompile(`\sops:prod\s`),
		"status":            regexp.MustCompile(`^status\s+fisk-fixture\s+read-only\b.*\s+-\s+impact:ro\s`),
		"echo":              regexp.MustCompile(`^echo\s+fisk-fixture\s+read-only, idempotent\s+-\s`),
	} {
		if !want.MatchString(rows[name]) {
			t.Errorf("row %q does not match %s", rows[name], want)
		}
	}
	if !strings.Contains(out, "16 tools") {
		t.Errorf("no count line: %q", out)
	}
	for _, w := range []string{`unknown tag "ai:sparkle"`, `confirm tag "typo:tag" matches no tool`} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks warning %q:\n%s", w, errOut)
		}
	}
	if strings.Contains(out, "warning") {
		t.Error("warnings reached stdout")
	}
}

func TestToolsJSONIsForMachines(t *testing.T) {
	out, errOut, code := runFiskMCP(t, nil, "tools", "--json", "--exclude", "^fx_admin_", "--schema", "full", "fx="+fixtureBin)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Tools []struct {
			Name     string `json:"name"`
			Title    string `json:"title"`
			App      string `json:"app"`
			Source   string `json:"source"`
			Kind     string `json:"kind"`
			Behavior struct {
				ReadOnly    bool `json:"read_only"`
				Destructive bool `json:"destructive"`
				Idempotent  bool `json:"idempotent"`
				OpenWorld   bool `json:"open_world"`
			} `json:"behavior"`
			Gated       bool           `json:"gated"`
			Gate        string         `json:"gate"`
			Tags        []string       `json:"tags"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
		// What the commands' environment loses and keeps, by name; see
		// TestToolsShowsTheScrubbingRule.
		Environment struct {
			Rule     string              `json:"rule"`
			Scrubbed []string            `json:"scrubbed"`
			Kept     []string            `json:"kept"`
			Apps     map[string][]string `json:"apps"`
		} `json:"environment"`
		// Whether tools/list is deferred and what each mode weighs; see
		// TestToolsWeighsTheListOfEachModeAsTheServerSendsIt.
		Deferral deferralDoc `json:"deferral"`
		// What runs without a person's approval, and the mappings the
		// app's tags suggest.
		Safety struct {
			Unguarded    []string   `json:"unguarded"`
			ReadOnly     []tagCount `json:"read_only_tags"`
			Confirm      []tagCount `json:"confirm_tags"`
			MarkReadOnly int        `json:"mark_read_only"`
			Gate         int        `json:"gate"`
			Left         []string   `json:"left"`
			Other        []tagCount `json:"other_tags"`
		} `json:"safety"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not the documented JSON: %v\n%s", err, out)
	}
	byName := map[string]int{}
	for i, tool := range doc.Tools {
		byName[tool.Name] = i
		if !strings.HasPrefix(tool.Name, "fx_") || tool.App != "fx" || tool.Source != fixtureBin || tool.Kind != "application" {
			t.Errorf("tool %+v", tool)
		}
		if strings.HasPrefix(tool.Name, "fx_admin_") {
			t.Errorf("excluded tool listed: %s", tool.Name)
		}
		if tool.InputSchema["type"] != "object" {
			t.Errorf("%s schema = %v", tool.Name, tool.InputSchema)
		}
	}
	touch := doc.Tools[byName["fx_touch"]]
	if !touch.Gated || touch.Gate != "ai:confirm" || touch.Title != "touch" {
		t.Errorf("touch = %+v", touch)
	}
	env := doc.Tools[byName["fx_env"]]
	if !env.Behavior.ReadOnly || !env.Behavior.Idempotent || env.Behavior.OpenWorld {
		t.Errorf("env behaviour = %+v", env.Behavior)
	}
	if len(doc.Tools) != len(fixtureTools)-3 {
		t.Errorf("%d tools", len(doc.Tools))
	}
	if d := doc.Deferral; d.Mode != "auto" || d.Threshold != 40 || d.Served != len(doc.Tools) || d.Deferred || d.Lists.Full.Tools != len(doc.Tools) || d.Lists.Deferred.Bytes == 0 {
		t.Errorf("deferral = %+v", d)
	}
	// The impact:rw commands are all excluded, so no gate is suggested;
	// impact:ro would make fx_status read-only.
	s := doc.Safety
	if !slices.Contains(s.Unguarded, "fx_deploy") || slices.Contains(s.Unguarded, "fx_touch") || slices.Contains(s.Unguarded, "fx_echo") ||
		!slices.Equal(s.ReadOnly, []tagCount{{"impact:ro", 3}}) || len(s.Confirm) != 0 || s.MarkReadOnly != 1 || s.Gate != 0 ||
		!slices.Contains(s.Other, tagCount{"ops:prod", 1}) || slices.Contains(s.Left, "fx_status") || len(s.Left) != len(s.Unguarded)-1 {
		t.Errorf("safety = %+v", s)
	}
}

type tagCount struct {
	Tag   string `json:"tag"`
	Tools int    `json:"tools"`
}

// TestBadStartupFailsClearlyAndServesNothing: every kind of bad input exits
// non-zero with a message saying what to do, and writes nothing to stdout
// (a client reading the protocol sees a closed stream, not garbage).
func TestBadStartupFailsClearlyAndServesNothing(t *testing.T) {
	dir := t.TempDir()
	emptyToken := filepath.Join(dir, "empty")
	if err := os.WriteFile(emptyToken, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	typo := filepath.Join(dir, "typo.yaml")
	if err := os.WriteFile(typo, []byte("confirm_tgas: [ops:prod]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notFisk := filepath.Join(dir, "not-fisk")
	if err := os.WriteFile(notFisk, []byte("#!/bin/sh\necho hello\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		{"bad regex", nil, []string{"serve", "--include", "([", fixtureBin}, []string{"--include", "regular expression"}},
		{"bogus schema mode", nil, []string{"serve", "--schema", "bogus", fixtureBin}, []string{"bogus"}},
		{"no app", nil, []string{"serve"}, []string{"no apps to serve"}},
		{"missing app", nil, []string{"serve", filepath.Join(dir, "nope")}, []string{"nope", "fisk binary"}},
		{"not a fisk app", nil, []string{"serve", notFisk}, []string{"not-fisk", "fisk"}},
		{"empty token file", nil, []string{"serve", "--http", "127.0.0.1:0", "--token-file", emptyToken, fixtureBin}, []string{"empty", "token"}},
		{"unreadable token file", nil, []string{"serve", "--http", "127.0.0.1:0", "--token-file", filepath.Join(dir, "none"), fixtureBin}, []string{"--token-file"}},
		{"config typo", nil, []string{"serve", "--config", typo, fixtureBin}, []string{`unknown key "confirm_tgas"`, `did you mean "confirm_tag"`}},
		{"unknown global flag", nil, []string{"serve", "--global-flag", "nonesuch", fixtureBin}, []string{"nonesuch"}},
		{"public address without a token", []string{"FISK_MCP_TOKEN="}, []string{"serve", "--http", "0.0.0.0:0", fixtureBin}, []string{"refusing to serve 0.0.0.0:0 ", "--token-file", "--insecure-no-auth"}},
		{"unknown flag", nil, []string{"serve", "--bogus", fixtureBin}, []string{"bogus"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runFiskMCP(t, tc.env, tc.args...)
			if code == 0 {
				t.Fatalf("exit 0; stderr:\n%s", errOut)
			}
			if out != "" {
				t.Errorf("stdout = %q", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, errOut)
				}
			}
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	out, _, code := runFiskMCP(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "fisk-mcp ") {
		t.Errorf("version: %d %q", code, out)
	}
	_, help, code := runFiskMCP(t, nil, "serve", "--help")
	if code != 0 {
		t.Errorf("help exited %d", code)
	}
	for _, flag := range []string{"--http", "--stateless", "--token-file", "--allow-origin", "--insecure-no-auth", "--include", "--exclude",
		"--include-tag", "--exclude-tag", "--confirm-tag", "--read-only-tag", "--additive-tag", "--destructive-tag", "--idempotent-tag",
		"--global-flag", "--scrub-env", "--schema", "--timeout", "--concurrency", "--elicit-timeout", "--name", "--instructions",
		"--watch", "--state-key-file", "--log-level", "--log-format", "--config"} {
		name := strings.TrimPrefix(flag, "--")
		if !strings.Contains(help, flag+"=") && !strings.Contains(help, "--[no-]"+name+" ") {
			t.Errorf("serve --help does not document %s", flag)
		}
	}
}

func TestConfigPrintsAClientConfigurationForThisBinary(t *testing.T) {
	out, errOut, code := runFiskMCP(t, nil, "config", "vscode", "--confirm-tag", "ops:prod", fixtureBin)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Servers map[string]struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	srv, ok := doc.Servers["fisk-fixture"]
	if !ok || srv.Type != "stdio" || srv.Command != fiskMCP {
		t.Fatalf("config = %s", out)
	}
	if want := []string{"serve", "--confirm-tag=ops:prod", "--name=fisk-fixture", fixtureBin}; !slices.Equal(srv.Args, want) {
		t.Fatalf("args = %q, want %q", srv.Args, want)
	}

	// Started as configured, the server asks for approval under the name
	// the client knows it by.
	var asked string
	s := startStdio(t, client{protocol: modernProtocol, elicit: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = req.Params.Message
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}, srv.Args[1:]...)
	s.call(t, "touch", args("path", filepath.Join(t.TempDir(), "touched")))
	if !strings.Contains(asked, `"fisk-fixture"`) {
		t.Errorf("approval prompt %q does not name the server fisk-fixture", asked)
	}
}

func TestStartupSaysWhatIsServedAndHowGatingBehaves(t *testing.T) {
	s := startStdio(t, client{protocol: modernProtocol}, "--confirm-tag", "ops:prod", "fx="+fixtureBin)
	// The last startup line; the ones before it are then in the buffer too.
	s.log.waitRecord(t, "announcing stdio", func(r map[string]any) bool { return r["msg"] == "serving MCP over stdio" })
	recs := s.log.records()
	find := func(msg string) map[string]any {
		for _, r := range recs {
			if r["msg"] == msg {
				return r
			}
		}
		t.Fatalf("no %q log line in:\n%s", msg, s.log.String())
		return nil
	}
	app := find("serving app")
	if app["app"] != fixtureBin || app["prefix"] != "fx" || app["tools"] != float64(len(fixtureTools)) {
		t.Errorf("app line = %v", app)
	}
	gated := find("gated tools need a person's approval")
	tools, _ := gated["tools"].([]any)
	if len(tools) != 3 || !strings.Contains(gated["how"].(string), "elicitation") || !strings.Contains(gated["how"].(string), "refused") {
		t.Errorf("gated line = %v", gated)
	}
	// ops:prod gates two of the fixture's eleven unguarded tools; the
	// app's impact:rw would gate one more, and the hint says so.
	unguarded := find("9 served tools may change or delete things and run without a person's approval")
	if first, _ := unguarded["tools"].([]any); unguarded["level"] != "WARN" || unguarded["of"] != float64(9) || len(first) != 5 || first[0] != "fx_admin_user_list" {
		t.Errorf("unguarded line = %v", unguarded)
	}
	find("the app tags its commands impact:ro (3) and impact:rw (2): --read-only-tag impact:ro --confirm-tag impact:rw would mark 1 read-only and gate 1, leaving 8 unguarded; fisk-mcp init APP writes a configuration with them to review")
}

// TestBadFlagPrintsTheErrorAndOneLineOfUsageNotTheHelp: a mistyped flag
// gets the error, a guess at what was meant, one line of usage and where
// the help is, and exit code 1; the whole help would scroll the error away.
func TestBadFlagPrintsTheErrorAndOneLineOfUsageNotTheHelp(t *testing.T) {
	out, errOut, code := runFiskMCP(t, nil, "serve", "--read-only-tags", "impact:ro", fixtureBin)
	want := "fisk-mcp: error: unknown flag --read-only-tags (did you mean --read-only-tag?)\nusage: fisk-mcp serve [flags] APP...\nsee fisk-mcp serve --help\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
	}
	_, help, _ := runFiskMCP(t, nil, "config", "--help")
	for _, flag := range []string{"--http", "--stateless", "--token-file", "--allow-origin", "--insecure-no-auth", "--max-sessions"} {
		if strings.Contains(help, flag+"=") || strings.Contains(help, "--[no-]"+strings.TrimPrefix(flag, "--")+" ") {
			t.Errorf("config --help lists %s, which config refuses", flag)
		}
	}
}
