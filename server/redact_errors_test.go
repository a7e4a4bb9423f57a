package server

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A validation error quotes the invalid value; when that value is a
// scrubbed variable's, neither the model nor the log may see it.
func TestSecretInAnInvalidArgumentIsRedactedInTheErrorAndTheLog(t *testing.T) {
	const secret = "sk-ant-api03-ERRORTEXTSECRET"
	s, logs := newServer(t, Config{Redactor: secretRedactor(secret)}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, nil)
	cases := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"enum", "echo", map[string]any{"context": "test", "subject": "x", "mode": secret}},
		{"integer", "echo", map[string]any{"context": "test", "subject": "x", "count": secret}},
		{"unknown argument", "echo", map[string]any{"context": "test", "subject": "x", secret: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := call(t, cs, c.tool, c.args)
			if !res.IsError {
				t.Fatalf("the call succeeded: %s", text(res))
			}
			if strings.Contains(text(res), secret) {
				t.Errorf("the secret reached the client: %s", text(res))
			}
			if !strings.Contains(text(res), "[redacted]") {
				t.Errorf("the error %q does not show where the value was", text(res))
			}
		})
	}
	// A name the set does not have is a protocol error quoting the name.
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: secret}); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("unknown tool error = %v, want an error without the secret", err)
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the secret reached the log:\n%s", logs)
	}
}
