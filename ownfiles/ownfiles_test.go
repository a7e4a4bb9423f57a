package ownfiles_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/ownfiles"
)

// victim is a directory of another user holding a file of theirs.
func victim(t *testing.T, base string) string {
	t.Helper()
	dir := filepath.Join(base, "victim")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	testsupport.GiveAway(t, dir, filepath.Join(dir, "f"))
	return dir
}

// untouched fails the test unless dir holds only its file f, as it was.
func untouched(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%s holds %v, want its one file", dir, entries)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(b) != "theirs" {
		t.Errorf("the victim's file is %q, %v", b, err)
	}
}

func TestDirectoriesAndLinksOfAnotherUserAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		// prepare returns the directory to write into, and what must
		// hold afterwards.
		prepare func(t *testing.T, base string) (dir string, after func(t *testing.T))
	}{
		{"a link of another user to their directory", func(t *testing.T, base string) (string, func(*testing.T)) {
			v := victim(t, base)
			return link(t, v, filepath.Join(base, ".cursor")), func(t *testing.T) { untouched(t, v) }
		}},
		{"a link of another user to a directory of ours", func(t *testing.T, base string) (string, func(*testing.T)) {
			mine := filepath.Join(base, "mine")
			os.Mkdir(mine, 0o700)
			return filepath.Join(link(t, mine, filepath.Join(base, ".cursor")), "sub"), func(t *testing.T) {
				if _, err := os.Stat(filepath.Join(mine, "sub")); err == nil {
					t.Error("a directory was made through the link")
				}
			}
		}},
		{"a directory of another user", func(t *testing.T, base string) (string, func(*testing.T)) {
			v := victim(t, base)
			return v, func(t *testing.T) { untouched(t, v) }
		}},
		{"a directory to make in a directory of another user", func(t *testing.T, base string) (string, func(*testing.T)) {
			v := victim(t, base)
			return filepath.Join(v, "sub", "dir"), func(t *testing.T) { untouched(t, v) }
		}},
		{"a directory others may write", func(t *testing.T, base string) (string, func(*testing.T)) {
			return mode(t, base, 0o1777), func(*testing.T) {}
		}},
		{"a directory its group may write", func(t *testing.T, base string) (string, func(*testing.T)) {
			return mode(t, base, 0o770), func(*testing.T) {}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, after := tc.prepare(t, t.TempDir())
			d, err := ownfiles.OpenDir(dir)
			if err == nil {
				write(t, d, "f", "ours")
				d.Close()
			}
			if !errors.Is(err, ownfiles.ErrNotOwn) {
				t.Errorf("opening %s: %v, want ErrNotOwn", dir, err)
			}
			after(t)
		})
	}
}

// link makes at a link of another user to target.
func link(t *testing.T, target, at string) string {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
	testsupport.GiveAway(t, at)
	return at
}

func mode(t *testing.T, base string, perm os.FileMode) string {
	t.Helper()
	dir := filepath.Join(base, "shared")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A person's dotfile kept in a repository: the link and what it names
// are theirs, and the file is written through it.
func TestALinkOfTheUserIsFollowed(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "dotfiles", "cursor")
	os.MkdirAll(repo, 0o700)
	link := filepath.Join(base, ".cursor")
	if err := os.Symlink("dotfiles/cursor", link); err != nil {
		t.Fatal(err)
	}
	path, err := ownfiles.Resolve(filepath.Join(link, "mcp.json"))
	if err != nil || path != filepath.Join(repo, "mcp.json") {
		t.Fatalf("resolved to %q, %v", path, err)
	}
	d, err := ownfiles.OpenDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	write(t, d, "mcp.json", "{}")
	if b, _ := os.ReadFile(filepath.Join(repo, "mcp.json")); string(b) != "{}" {
		t.Errorf("the target holds %q", b)
	}
}

func write(t *testing.T, d *ownfiles.Dir, name, content string) {
	t.Helper()
	f, err := d.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(content)
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
}

// A file is replaced whole, with its mode; a new one is 0600; nothing is
// left beside it.
func TestAFileIsReplacedWithItsMode(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "kept"), []byte("old"), 0o640)
	os.Chmod(filepath.Join(dir, "kept"), 0o640)
	d, err := ownfiles.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	write(t, d, "kept", "new")
	write(t, d, "fresh", "new")
	for name, mode := range map[string]os.FileMode{"kept": 0o640, "fresh": 0o600} {
		st, _ := os.Stat(filepath.Join(dir, name))
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "new" || st.Mode().Perm() != mode {
			t.Errorf("%s: %q, mode %v; want new, %v", name, b, st.Mode().Perm(), mode)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left beside: %v", entries)
	}
}

// Dropping new content removes the temporary file only while it is the
// one written: a file put in its place stays.
func TestDiscardRemovesOnlyTheFileItWrote(t *testing.T) {
	dir := t.TempDir()
	d, err := ownfiles.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f, err := d.Create("mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("beside the new content: %v", entries)
	}
	tmp := filepath.Join(dir, entries[0].Name())
	theirs := filepath.Join(dir, "theirs")
	os.WriteFile(theirs, []byte("theirs"), 0o644)
	if err := os.Rename(theirs, tmp); err != nil {
		t.Fatal(err)
	}
	f.Discard()
	if b, err := os.ReadFile(tmp); err != nil || string(b) != "theirs" {
		t.Errorf("the file put in place of the new content: %q, %v", b, err)
	}

	f, _ = d.Create("mcp.json")
	f.Discard()
	entries, _ = os.ReadDir(dir)
	if names := entryNames(entries); !slices.Equal(names, []string{filepath.Base(tmp)}) {
		t.Errorf("after a discard, the directory holds %v", names)
	}
}

func entryNames(entries []os.DirEntry) []string {
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
