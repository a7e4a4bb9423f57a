package main

import (
	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/execrunner"

	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeApp writes an executable file standing in for a fisk binary: option
// parsing only checks that an app exists and is executable.
func fakeApp(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// parse runs the command line through the real parser in dry-run mode.
func parse(t *testing.T, args ...string) (*cli, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := newCLI(context.Background(), &stdout, &stderr)
	c.dryRun = true
	c.app.Terminate(func(code int) { t.Fatalf("parser terminated with %d: %s", code, stderr.String()) })
	_, err := c.app.Parse(args)
	return c, stdout.String(), err
}

func TestServeFlagsBecomeAValidatedPlan(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	other := fakeApp(t, dir, "other")
	token := writeFile(t, dir, "token", "  s3cret-token-value\n", 0o600)

	c, _, err := parse(t, "serve",
		"--http", "127.0.0.1:0", "--stateless", "--token-file", token, "--allow-origin", "https://a.example", "--allow-origin", "https://b.example",
		"--include", "^echo", "--include", "^admin_", "--exclude", "delete$",
		"--include-tag", "impact:ro", "--exclude-tag", "ops:prod", "--confirm-tag", "ops:prod",
		"--read-only-tag", "impact:ro", "--additive-tag", "impact:add", "--destructive-tag", "impact:rw", "--idempotent-tag", "impact:idem",
		"--global-flag", "context", "--scrub-env", "MY_SECRET", "--schema", "full",
		"--timeout", "5s", "--concurrency", "2", "--elicit-timeout", "10s",
		"--name", "ops", "--instructions", "Be careful", "--watch", "--log-level", "debug", "--log-format", "json",
		app, "x="+other)
	if err != nil {
		t.Fatal(err)
	}
	p := c.planned
	if len(p.Apps) != 2 || p.Apps[0].Path != app || p.Apps[1].Prefix != "x" || p.Apps[1].Path != other {
		t.Fatalf("apps = %+v", p.Apps)
	}
	if !slices.Equal(p.Apps[1].Globals, []string{"context"}) {
		t.Errorf("globals = %v", p.Apps[1].Globals)
	}
	sel := p.Policy
	if len(sel.Include) != 2 || len(sel.Exclude) != 1 || sel.Schema != "full" {
		t.Errorf("selection = %+v", sel)
	}
	for name, got := range map[string][]string{
		"include-tag": sel.IncludeTags, "exclude-tag": sel.ExcludeTags, "confirm-tag": sel.ConfirmTags,
		"read-only-tag": sel.ReadOnlyTags, "additive-tag": sel.AdditiveTags, "destructive-tag": sel.DestructiveTags,
		"idempotent-tag": sel.IdempotentTags, "scrub-env": p.ScrubEnv,
	} {
		if len(got) != 1 {
			t.Errorf("--%s = %v", name, got)
		}
	}
	sp := p.Serving
	if sp.HTTP.Addr != "127.0.0.1:0" || !sp.HTTP.Stateless || sp.HTTP.Token != "s3cret-token-value" || len(sp.HTTP.AllowOrigins) != 2 {
		t.Errorf("http settings = %+v", sp)
	}
	if sp.Server.Timeout != 5*time.Second || sp.Server.Concurrency != 2 || sp.Approval.Timeout != 10*time.Second {
		t.Errorf("limits = %+v", sp)
	}
	if sp.Server.Name != "ops" || sp.Server.Instructions != "Be careful" || !sp.Watch || p.LogLevel != "debug" || p.LogFormat != "json" {
		t.Errorf("misc = %+v %s %s", sp, p.LogLevel, p.LogFormat)
	}
}

func TestServeDefaults(t *testing.T) {
	app := fakeApp(t, t.TempDir(), "tool")
	c, _, err := parse(t, "serve", app)
	if err != nil {
		t.Fatal(err)
	}
	sp := c.planned.Serving
	if sp.HTTP.Addr != "" || sp.Server.Timeout != 30*time.Second || sp.Server.Concurrency != 4 || sp.Approval.Timeout != 0 || sp.Approval.Mode != elicit.ModeElicit {
		// A zero wait is the gate's default for each way of asking.
		t.Errorf("defaults = %+v", sp)
	}
	if c.planned.Policy.Schema != "restricted" || c.planned.LogFormat != "text" || c.planned.LogLevel != "info" {
		t.Errorf("defaults = %+v", c.planned)
	}
}

func TestHTTPTokenComesFromTheEnvironmentWhenNoFileIsGiven(t *testing.T) {
	app := fakeApp(t, t.TempDir(), "tool")
	t.Setenv(execrunner.TokenEnvVar, "from-the-environment\n")
	c, _, err := parse(t, "serve", "--http", "127.0.0.1:0", app)
	if err != nil {
		t.Fatal(err)
	}
	if c.planned.Serving.HTTP.Token != "from-the-environment" || c.planned.Serving.TokenFromFile {
		t.Errorf("token = %q", c.planned.Serving.HTTP.Token)
	}
}

func TestBadInputIsRefusedSayingWhatToDo(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	notExec := writeFile(t, dir, "plain", "data", 0o644)
	empty := writeFile(t, dir, "empty-token", " \n", 0o600)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"bad include regex", []string{"serve", "--include", "([", app}, []string{`--include "(["`, "not a valid regular expression", "fix it"}},
		{"bad exclude regex", []string{"tools", "--exclude", "a{2,1}", app}, []string{`--exclude "a{2,1}"`}},
		{"unknown schema mode", []string{"serve", "--schema", "bogus", app}, []string{"restricted", "full", "bogus"}},
		{"no app", []string{"serve"}, []string{"no apps to serve", "PREFIX=PATH"}},
		{"missing app", []string{"serve", filepath.Join(dir, "missing")}, []string{"missing", "no such file", "fisk binary"}},
		{"app not in PATH", []string{"tools", "no-such-fisk-binary-anywhere"}, []string{"not found in PATH"}},
		{"secret flag with dashes", []string{"tools", "--secret-flag=-password", app}, []string{`--secret-flag "-password"`, "without dashes"}},
		{"keep the server's token", []string{"tools", "--keep-env", "FISK_MCP_TOKEN", app}, []string{"--keep-env FISK_MCP_TOKEN", "never reaches commands"}},
		{"keep and scrub one name", []string{"tools", "--keep-env", "X_TOKEN", "--scrub-env", "x_token", app}, []string{"--keep-env X_TOKEN", "not both"}},
		{"app is a directory", []string{"serve", dir}, []string{"is a directory"}},
		{"app not executable", []string{"serve", notExec}, []string{"not executable"}},
		{"bad prefix", []string{"serve", "bad prefix=" + app}, []string{"prefix", "bad prefix"}},
		{"empty path after prefix", []string{"serve", "p="}, []string{"empty path", "PREFIX=PATH"}},
		{"unreadable token file", []string{"serve", "--http", ":0", "--token-file", filepath.Join(dir, "nope"), app}, []string{"--token-file", "no such file", "readable file"}},
		{"empty token file", []string{"serve", "--http", ":0", "--token-file", empty, app}, []string{"is empty", "write the bearer token"}},
		{"stateless without http", []string{"serve", "--stateless", app}, []string{"--stateless only applies to streamable HTTP"}},
		{"origin without http", []string{"serve", "--allow-origin", "https://x", app}, []string{"--allow-origin only applies"}},
		{"zero concurrency", []string{"serve", "--concurrency", "0", app}, []string{"--concurrency 0", "at least 1"}},
		{"zero max sessions", []string{"serve", "--http", ":0", "--max-sessions", "0", app}, []string{"--max-sessions 0", "at least 1 session"}},
		{"zero timeout", []string{"serve", "--timeout", "0s", app}, []string{"--timeout", "positive duration"}},
		{"global flag with dashes", []string{"serve", "--global-flag=--context", app}, []string{"without dashes"}},
		{"missing state key", []string{"serve", "--state-key-file", filepath.Join(dir, "nokey"), app}, []string{"--state-key-file", "openssl rand -hex 32"}},
		{"bad log level", []string{"serve", "--log-level", "loud", app}, []string{"loud"}},
		{"missing config", []string{"serve", "--config", filepath.Join(dir, "nope.yaml"), app}, []string{"--config", "readable YAML"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := parse(t, tc.args...)
			if err == nil {
				t.Fatalf("accepted %v: %+v", tc.args, c.planned)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if c.planned != nil {
				t.Errorf("a plan was produced despite the error")
			}
		})
	}
}

func TestEveryProblemIsReportedAtOnce(t *testing.T) {
	_, _, err := parse(t, "serve", "--include", "(", "--concurrency", "0", "/no/such/app")
	if err == nil {
		t.Fatal("accepted")
	}
	for _, w := range []string{"--include", "--concurrency", "/no/such/app"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

func TestEveryFlagHasHelp(t *testing.T) {
	c := newCLI(context.Background(), &bytes.Buffer{}, &bytes.Buffer{})
	model := c.app.Model()
	for _, cmd := range model.Commands {
		for _, f := range cmd.Flags {
			if strings.TrimSpace(f.Help) == "" {
				t.Errorf("%s --%s has no help", cmd.Name, f.Name)
			}
		}
	}
}

func TestServeToolsAndConfigShareTheSelectionFlags(t *testing.T) {
	c := newCLI(context.Background(), &bytes.Buffer{}, &bytes.Buffer{})
	flags := map[string][]string{}
	for _, cmd := range c.app.Model().Commands {
		for _, f := range cmd.Flags {
			flags[cmd.Name] = append(flags[cmd.Name], f.Name)
		}
	}
	for _, name := range flags["tools"] {
		if name == "json" {
			continue
		}
		if !slices.Contains(flags["serve"], name) || !slices.Contains(flags["config"], name) {
			t.Errorf("tools --%s is missing from serve or config", name)
		}
	}
	// Config and bundle make clients start the server over stdio: they
	// neither list nor take the flags of streamable HTTP.
	httpOnly := []string{"http", "stateless", "token-file", "oauth-issuer", "oauth-resource", "oauth-audience", "oauth-scope", "allow-origin", "allow-host", "insecure-no-auth", "max-sessions", "approvals-client-id", "approvals-client-secret-file"}
	for _, name := range flags["serve"] {
		if slices.Contains(httpOnly, name) {
			for _, cmd := range []string{"config", "bundle"} {
				if slices.Contains(flags[cmd], name) {
					t.Errorf("%s takes serve's HTTP flag --%s", cmd, name)
				}
			}
			continue
		}
		if !slices.Contains(flags["config"], name) {
			t.Errorf("serve --%s is missing from config", name)
		}
	}
	for _, name := range httpOnly {
		if !slices.Contains(flags["serve"], name) {
			t.Errorf("serve does not take --%s", name)
		}
	}
}

func TestVersionPrintsTheVersion(t *testing.T) {
	_, out, err := parse(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "fisk-mcp ") {
		t.Errorf("version printed %q", out)
	}
}

func TestStateKeyFileIsLoadedOrRefused(t *testing.T) {
	dir := t.TempDir()
	app := fakeApp(t, dir, "tool")
	good := writeFile(t, dir, "good.key", "8f1d6c2a9b7e4f30a1c5d8e2b4f6a7c90d3e5f7a1b2c4d6e8f0a2b4c6d8e0f13\n", 0o600)
	weak := writeFile(t, dir, "weak.key", "passphrase\n", 0o600)
	c, _, err := parse(t, "serve", "--state-key-file", good, app)
	if err != nil || len(c.planned.Serving.Approval.Key) != 32 {
		t.Fatalf("good key: %v", err)
	}
	if _, _, err := parse(t, "serve", "--state-key-file", weak, app); err == nil || !strings.Contains(err.Error(), "openssl rand -hex 32") {
		t.Fatalf("weak key: %v", err)
	}
}
