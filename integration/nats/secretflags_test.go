package nats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The NATS CLI's --password, exposed with --global-flag password, reaches
// the command (the context it saves holds it) but not the result's
// command line, which still says that a password was passed.
func TestNATSPasswordGlobalFlagIsHiddenFromTheCommandLine(t *testing.T) {
	sb := newSandbox(t)
	s := serve(t, sb, append(natsPolicy, "--global-flag", "password", "--global-flag", "user")...)

	const password = "s3cret-nats-password"
	res, text := call(t, s, "context_add", map[string]any{
		"name": "secret", "server": "nats://127.0.0.1:4999", "user": "alice", "password": password,
	})
	if res.IsError {
		t.Fatalf("context_add failed:\n%s", text)
	}
	env := ran(t, "context_add", res)
	if !strings.Contains(env.Command, "'--password=[redacted]'") || !strings.Contains(env.Command, "--user=alice") {
		t.Errorf("command %q, want the password flag shown redacted and the user in clear", env.Command)
	}
	if strings.Contains(text, password) {
		t.Errorf("the password reached the client:\n%s", text)
	}
	saved, err := os.ReadFile(filepath.Join(sb.config, "nats", "context", "secret.json"))
	if err != nil {
		t.Fatalf("context_add reported success but saved no context: %v", err)
	}
	if !strings.Contains(string(saved), password) {
		t.Errorf("the command did not get the real password; the saved context is:\n%s", saved)
	}
}
