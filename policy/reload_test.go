package policy

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAReloadKeepsThePolicyInForceWhenTheNewOneIsBadAndSaysWhy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.cedar")
	write := func(s string) {
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const viewers = "@id(\"viewers-read-only\")\npermit (principal in Group::\"viewers\", action, resource) when { resource.read_only };\n"
	write(viewers)
	p, err := Load(file, Claims{})
	if err != nil {
		t.Fatal(err)
	}
	cur := NewCurrent(p)
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	write("@id(\"typo\")\npermit (principal, action, resource) when { resource.readonly };\n")
	if cur.ReloadOnSignal(log) || cur.Load() != p || !strings.Contains(logs.String(), "policy reload failed") || !strings.Contains(logs.String(), "typo") {
		t.Fatalf("a bad policy: in force %v, log %s", cur.Load(), logs.String())
	}
	write(viewers + "permit (principal == Caller::\"local\", action, resource);\n")
	if !cur.ReloadOnSignal(log) || cur.Load() == p || !strings.Contains(logs.String(), "policy reloaded") {
		t.Fatalf("a good policy was not put in force: %s", logs.String())
	}
	if (*Current)(nil).ReloadOnSignal(log) { // no --policy: nothing to do
		t.Error("a reload without a policy reported a new one")
	}
}
