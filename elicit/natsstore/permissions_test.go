package natsstore

import (
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/fisk-mcp/fisk-mcp/natsconn"
)

// startLockedServer runs a JetStream server whose only user may publish
// nothing but to a subject of its own.
func startLockedServer(t *testing.T) string {
	return startServer(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "locked", Password: "pw",
			Permissions: &server.Permissions{Publish: &server.SubjectPermission{Allow: []string{"only.this"}}}}}
	})
}

func TestMissingPermissionsFailAtOpen(t *testing.T) {
	url := startLockedServer(t)
	pw := t.TempDir() + "/pw"
	writeFile(t, pw, "pw\n")
	_, err := Open(t.Context(), Config{Config: natsconn.Config{URL: url, User: "locked", PasswordFile: pw, OpTimeout: time.Second}})
	if err == nil || !errors.Is(err, nats.ErrPermissionViolation) {
		t.Fatalf("Open without permissions: %v", err)
	}
}
