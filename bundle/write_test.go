package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/ownfiles"
)

// A bundle is not written into another user's directory, whether named
// directly or through their link: their files stay, and nothing is added
// among them. Into a directory of ours, a new bundle is 0600.
func TestWriteFileRefusesADirectoryOfAnotherUser(t *testing.T) {
	s := spec(t)
	base := t.TempDir()
	victim := filepath.Join(base, "victim")
	os.Mkdir(victim, 0o755)
	theirs := filepath.Join(victim, "t.mcpb")
	os.WriteFile(theirs, []byte("theirs"), 0o644)
	link := filepath.Join(base, "out")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	testsupport.GiveAway(t, victim, theirs, link)
	for _, path := range []string{theirs, filepath.Join(link, "t.mcpb")} {
		if err := WriteFile(path, s); !errors.Is(err, ownfiles.ErrNotOwn) {
			t.Errorf("writing %s: %v, want ErrNotOwn", path, err)
		}
	}
	if b, _ := os.ReadFile(theirs); string(b) != "theirs" {
		t.Errorf("their file holds %d bytes, %.20q...", len(b), b)
	}
	if entries, _ := os.ReadDir(victim); len(entries) != 1 {
		t.Errorf("files added among theirs: %v", entries)
	}

	ours := filepath.Join(base, "t.mcpb")
	if err := WriteFile(ours, s); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(ours); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("a new bundle: %v; want mode 0600", err)
	}
}
