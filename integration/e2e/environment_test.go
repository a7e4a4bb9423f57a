package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// What an attack run found in an env-printing command's output, each with
// its value: none may reach a command, and no value may appear anywhere.
var leakedEnv = []string{
	"NPM_TOKEN=npm_leak_0123456789", "SLACK_BOT_TOKEN=xoxb-leak-0123456789", "VAULT_TOKEN=hvs.leak0123456789",
	"DATABASE_URL=postgres://app:db-leak-password@db.internal/app", "AWS_SECRET_ACCESS_KEY_OLD=aws-leak-0123456789",
	"AZURE_OPENAI_KEY=azure-leak-0123456789", "CLAUDE_API_KEY=claude-leak-0123456789", "HF_API_TOKEN=hf_leak_0123456789",
	"KUBECONFIG=/home/u/.kube/leak-config", "SSH_AUTH_SOCK=/tmp/ssh-leak/agent.1234",
}

// The fixture declares FIXTURE_PASSWORD for its --password flag: the app's
// own credential, which its commands keep, its value redacted from output.
func TestCommandsGetNoCredentialButTheAppsOwn(t *testing.T) {
	const appPassword = "fixture-own-password-1"
	env := append(slices.Clone(leakedEnv), "FIXTURE_PASSWORD="+appPassword, "KEEP_THIS_TOKEN=kept-on-purpose-1")
	s := startStdio(t, client{protocol: modernProtocol, env: env}, "--keep-env", "KEEP_THIS_TOKEN", fixtureBin)
	out := envelope(t, s.call(t, "env", args("context", "test"))).Output
	for _, kv := range leakedEnv {
		name, value, _ := strings.Cut(kv, "=")
		if strings.Contains(out, name+"=") || strings.Contains(out, value) {
			t.Errorf("%s reached the command:\n%s", name, out)
		}
	}
	for _, want := range []string{"FIXTURE_PASSWORD=[redacted]", "KEEP_THIS_TOKEN=[redacted]", "PATH=", "HOME=", "LLMFORMAT=1"} {
		if !strings.Contains(out, want) {
			t.Errorf("the command's environment lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, appPassword) {
		t.Errorf("the app's password reached the client:\n%s", out)
	}

	line := s.log.waitRecord(t, "the environment line", func(r map[string]any) bool {
		msg, _ := r["msg"].(string)
		return strings.HasPrefix(msg, "environment: ") && strings.HasSuffix(msg, " variables scrubbed as credentials; fisk-mcp tools --json shows the rule")
	})
	if _, ok := line["rule"]; ok {
		t.Errorf("the startup line repeats the rule, which fisk-mcp tools shows: %v", line)
	}
	scrubbed, _ := line["scrubbed"].([]any)
	for _, kv := range leakedEnv {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(scrubbed, any(name)) {
			t.Errorf("the startup line's scrubbed %v lacks %s", scrubbed, name)
		}
	}
	if kept, _ := line["kept"].([]any); !slices.Equal(kept, []any{"KEEP_THIS_TOKEN"}) {
		t.Errorf("kept = %v, want KEEP_THIS_TOKEN", line["kept"])
	}
	if apps, _ := line["kept_for_apps"].(map[string]any); apps == nil || !slices.Contains(apps["fisk-fixture"].([]any), any("FIXTURE_PASSWORD")) {
		t.Errorf("kept_for_apps = %v, want FIXTURE_PASSWORD for the fixture", line["kept_for_apps"])
	}
	logs := s.log.String()
	for _, kv := range append(env, "x="+appPassword) {
		if _, value, _ := strings.Cut(kv, "="); strings.Contains(logs, value) {
			t.Errorf("the log holds the value of %s", kv)
		}
	}
}

func TestToolsShowsTheScrubbingRule(t *testing.T) {
	out, errOut, code := runFiskMCP(t, leakedEnv, "tools", "--json", fixtureBin)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Environment struct {
			Rule     string              `json:"rule"`
			Scrubbed []string            `json:"scrubbed"`
			Apps     map[string][]string `json:"apps"`
		} `json:"environment"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Environment.Rule, "TOKEN") {
		t.Errorf("rule = %q", doc.Environment.Rule)
	}
	for _, kv := range leakedEnv {
		name, value, _ := strings.Cut(kv, "=")
		if !slices.Contains(doc.Environment.Scrubbed, name) {
			t.Errorf("scrubbed %v lacks %s", doc.Environment.Scrubbed, name)
		}
		if strings.Contains(out, value) {
			t.Errorf("tools printed the value of %s", name)
		}
	}
	table, _, _ := runFiskMCP(t, leakedEnv, "tools", fixtureBin)
	if !strings.Contains(table, "scrubbed: ") || !strings.Contains(table, "NPM_TOKEN") {
		t.Errorf("the table does not say what is scrubbed:\n%s", table)
	}
}
