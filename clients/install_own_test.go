package clients

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/ownfiles"
)

// A client's file reached through another user's directory or link is
// not written, nor backed up beside: the other user's files stay as they
// were, and nothing is added among them.
func TestInstallRefusesADirectoryOfAnotherUser(t *testing.T) {
	for _, tc := range []struct {
		name string
		path func(base, victim string) string
	}{
		{"through their link", func(base, victim string) string {
			link := filepath.Join(base, ".cursor")
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			testsupport.GiveAway(t, link)
			return filepath.Join(link, "mcp.json")
		}},
		{"in their directory", func(_, victim string) string { return filepath.Join(victim, "mcp.json") }},
		{"through a link of ours to their directory", func(base, victim string) string {
			link := filepath.Join(base, ".cursor")
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(link, "mcp.json")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			victim := filepath.Join(base, "victim")
			os.Mkdir(victim, 0o755)
			theirs := filepath.Join(victim, "mcp.json")
			os.WriteFile(theirs, []byte(desktopFile), 0o644)
			testsupport.GiveAway(t, victim, theirs)

			_, err := Install("cursor", fiskLaunch, tc.path(base, victim), true)
			if !errors.Is(err, ownfiles.ErrNotOwn) {
				t.Errorf("err = %v, want ErrNotOwn", err)
			}
			if b, _ := os.ReadFile(theirs); string(b) != desktopFile {
				t.Errorf("their file changed:\n%s", b)
			}
			if entries, _ := os.ReadDir(victim); len(entries) != 1 {
				t.Errorf("files added among theirs: %v", entries)
			}
		})
	}
}

// A program that writes the file while an install merges into it (the
// client itself, saving a setting) keeps its change: the install merges
// into the file as it is now.
func TestInstallKeepsAChangeMadeWhileItMerges(t *testing.T) {
	path := writeTemp(t, "mcp.json", desktopFile)
	changed := false
	testHookBeforeRename = func(string) {
		if !changed {
			changed = true
			if err := os.WriteFile(path, []byte(`{"mcpServers": {"theirs": {"command": "x"}}}`), 0o640); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(func() { testHookBeforeRename = nil })
	res, err := Install("cursor", fiskLaunch, path, false)
	if err != nil || !changed {
		t.Fatalf("%+v, %v (changed: %v)", res, err, changed)
	}
	servers := decodeFile(t, "cursor", path)["mcpServers"].(map[string]any)
	if servers["theirs"] == nil || servers["nats"] == nil || servers["filesystem"] != nil {
		t.Errorf("servers after the install: %v; want theirs and nats", servers)
	}
	if b, _ := os.ReadFile(res.Backup); string(b) != `{"mcpServers": {"theirs": {"command": "x"}}}` {
		t.Errorf("the backup holds %q, want the file as the install replaced it", b)
	}
}
