package natsstore

import (
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// startLockedServer runs a JetStream server whose only user may publish
// nothing but to a subject of its own.
func startLockedServer(t *testing.T) string {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
		Users: []*server.User{{Username: "locked", Password: "pw",
			Permissions: &server.Permissions{Publish: &server.SubjectPermission{Allow: []string{"only.this"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return "nats://" + srv.Addr().String()
}

func TestMissingPermissionsFailAtOpen(t *testing.T) {
	url := startLockedServer(t)
	pw := t.TempDir() + "/pw"
	writeFile(t, pw, "pw\n")
	_, err := Open(t.Context(), Config{URL: url, User: "locked", PasswordFile: pw, OpTimeout: time.Second})
	if err == nil || !errors.Is(err, nats.ErrPermissionViolation) {
		t.Fatalf("Open without permissions: %v", err)
	}
}
