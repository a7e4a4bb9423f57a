package exposure_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// envReporter writes a stand-in fisk application (a shell script, a test
// input only) whose one command's help reports what its introspection saw
// of three variables.
func envReporter(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "envapp")
	doc := `{"name":"envapp","commands":[{"name":"seen","help":"key=%s keep=%s llmformat=%s",` +
		`"schema":{"type":"object"},"restricted_schema":{"type":"object","additionalProperties":false}}]}`
	body := "#!/bin/sh\nprintf '" + doc + `\n' "${ANTHROPIC_API_KEY:-unset}" "${FISK_MCP_TEST_KEEP:-unset}" "${LLMFORMAT:-unset}"` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadIntrospectsInAScrubbedEnvironmentUnlessGivenOne(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-not-a-real-key")
	t.Setenv("FISK_MCP_TEST_KEEP", "kept")
	t.Setenv("LLMFORMAT", "")
	cases := []struct {
		label string
		env   []string
		want  string
	}{
		{"nil environment: the server's, scrubbed", nil, "key=unset keep=kept llmformat=1"},
		{"scrubbed by the caller with a scrub list", execrunner.Environ(os.Environ(), []string{"FISK_MCP_TEST_KEEP"}), "key=unset keep=unset llmformat=1"},
		{"given environment, used as given", []string{"FISK_MCP_TEST_KEEP=given"}, "key=unset keep=given llmformat=unset"},
	}
	path := envReporter(t)
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			set, err := exposure.Load(background, []exposure.App{{Path: path}}, nil, exposure.Policy{},
				exposure.LoadOptions{Introspect: introspect.Options{Env: c.env}})
			if err != nil {
				t.Fatal(err)
			}
			if got := mustLookup(t, set, "seen").Description(); got != c.want {
				t.Errorf("introspection saw %q, want %q", got, c.want)
			}
		})
	}
}
