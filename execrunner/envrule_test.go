package execrunner

import (
	"slices"
	"strings"
	"testing"
)

// The variables an attack run found in a command's environment, with the
// value each had; none may reach a command, every value is redacted.
var leaked = []string{
	"NPM_TOKEN=npm_0123456789abcdef", "SLACK_BOT_TOKEN=xoxb-0123456789", "VAULT_TOKEN=hvs.0123456789ab",
	"DATABASE_URL=postgres://app:db-password-1@db.internal/app", "AWS_SECRET_ACCESS_KEY_OLD=aws-old-0123456789",
	"AZURE_OPENAI_KEY=azure-0123456789", "CLAUDE_API_KEY=claude-0123456789", "HF_API_TOKEN=hf_0123456789",
	"KUBECONFIG=/home/u/.kube/prod-config", "SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.1234",
}

// What CLIs need to run, and ordinary settings the rule must leave alone.
var needed = []string{
	"PATH=/usr/bin:/bin", "HOME=/home/u", "USER=u", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=xterm",
	"TZ=UTC", "TMPDIR=/tmp", "XDG_CONFIG_HOME=/home/u/.config", "SHELL=/bin/sh",
	"EDITOR=vi", "NATS_URL=nats://demo.nats.io", "GIT_AUTHOR_NAME=Someone", "KEYBOARD=us",
	"MONKEY_ISLAND=3", "HTTP_PROXY=http://proxy:3128",
}

func TestEnvironmentScrubsCredentialsByRule(t *testing.T) {
	e := NewEnvironment(append(slices.Clone(leaked), needed...), EnvRule{})
	env := e.For(nil)
	for _, kv := range leaked {
		name := envName(kv)
		if slices.ContainsFunc(env, func(s string) bool { return envName(s) == name }) {
			t.Errorf("%s reached the command", name)
		}
		if !slices.Contains(e.Scrubbed(), name) {
			t.Errorf("Scrubbed() = %v lacks %s", e.Scrubbed(), name)
		}
	}
	for _, kv := range needed {
		if !slices.Contains(env, kv) {
			t.Errorf("%s was scrubbed; a CLI needs it or it is no credential", kv)
		}
	}
	r := NewRedactor(e.Secrets()...)
	for _, kv := range leaked {
		_, value, _ := strings.Cut(kv, "=")
		if got := r.Redact("x " + value + " y"); got != "x "+Redacted+" y" {
			t.Errorf("the value of %s is not redacted: %q", envName(kv), got)
		}
	}
	if got := r.Redact("password db-password-1 leaked"); strings.Contains(got, "db-password-1") {
		t.Errorf("a URL's password printed alone is not redacted: %q", got)
	}
}

// An application's own variables are its to use: kept for its commands,
// still redacted; the operator's --keep-env and --scrub-env win over the
// rule; the server's token is never kept.
func TestEnvironmentKeepsWhatTheAppDeclaresAndTheOperatorChose(t *testing.T) {
	base := []string{
		"NATS_PASSWORD=nats-password-1", "NATS_CREDS=/home/u/nats.creds", "GITHUB_TOKEN=ghp_0123456789",
		"OTHER_TOKEN=other-token-0123", "SSH_AUTH_SOCK=/tmp/agent.1", "PLAIN=x", "FISK_MCP_TOKEN=server-token-0123",
	}
	e := NewEnvironment(base, EnvRule{Keep: []string{"ssh_auth_sock"}, Scrub: []string{"PLAIN"}})
	app := e.For([]string{"NATS_PASSWORD", "NATS_CREDS", "NATS_URL", "FISK_MCP_TOKEN"})
	other := e.For(nil)
	for _, kv := range []string{"NATS_PASSWORD=nats-password-1", "NATS_CREDS=/home/u/nats.creds", "SSH_AUTH_SOCK=/tmp/agent.1", "LLMFORMAT=1"} {
		if !slices.Contains(app, kv) {
			t.Errorf("the app's command lacks %s: %q", kv, app)
		}
	}
	for _, env := range [][]string{app, other} {
		for _, name := range []string{"GITHUB_TOKEN", "OTHER_TOKEN", "PLAIN", "FISK_MCP_TOKEN"} {
			if slices.ContainsFunc(env, func(s string) bool { return envName(s) == name }) {
				t.Errorf("%s reached a command: %q", name, env)
			}
		}
	}
	if slices.ContainsFunc(other, func(s string) bool { return strings.HasPrefix(s, "NATS_") }) {
		t.Errorf("another app's command got the NATS variables: %q", other)
	}
	if got := e.HeldFor([]string{"NATS_URL", "NATS_CREDS", "NATS_PASSWORD"}); !slices.Equal(got, []string{"NATS_CREDS", "NATS_PASSWORD"}) {
		t.Errorf("HeldFor = %v", got)
	}
	if got := e.Kept(); !slices.Equal(got, []string{"SSH_AUTH_SOCK"}) {
		t.Errorf("Kept() = %v", got)
	}
	r := NewRedactor(e.Secrets()...)
	for _, v := range []string{"nats-password-1", "/home/u/nats.creds", "ghp_0123456789", "server-token-0123", "/tmp/agent.1"} {
		if strings.Contains(r.Redact(v), v) {
			t.Errorf("%s is not redacted", v)
		}
	}
}

// The server's own exporter settings never reach a command, whatever an
// app declares or the operator keeps, and their values are redacted; the
// other OTEL_* settings are ordinary ones.
func TestEnvironmentScrubsTheServersTelemetryExporterSettings(t *testing.T) {
	base := []string{
		"OTEL_EXPORTER_OTLP_HEADERS=x-api-key=collector-key-0123", "OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318",
		"OTEL_SERVICE_NAME=fisk-mcp", "PATH=/usr/bin",
	}
	e := NewEnvironment(base, EnvRule{Keep: []string{"OTEL_EXPORTER_OTLP_HEADERS"}})
	env := e.For([]string{"OTEL_EXPORTER_OTLP_ENDPOINT"})
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		if slices.ContainsFunc(env, func(s string) bool { return envName(s) == name }) {
			t.Errorf("%s reached the command: %v", name, env)
		}
	}
	if !slices.Contains(env, "OTEL_SERVICE_NAME=fisk-mcp") {
		t.Errorf("OTEL_SERVICE_NAME was scrubbed: %v", env)
	}
	if got := NewRedactor(e.Secrets()...).Redact("key x-api-key=collector-key-0123"); strings.Contains(got, "collector-key-0123") {
		t.Errorf("the exporter headers' value is not redacted: %q", got)
	}
}
