package fileid_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/fileid"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestABareNameIsTheFileInPATH(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "fileid-probe"), "#!/bin/sh\n")
	t.Setenv("PATH", dir)
	bare, err := fileid.Stat("fileid-probe")
	if err != nil {
		t.Fatal(err)
	}
	full, err := fileid.Stat(filepath.Join(dir, "fileid-probe"))
	if err != nil || bare != full {
		t.Errorf("bare name %v, full path %v (%v)", bare, full, err)
	}
	if _, err := fileid.Stat("fileid-absent"); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("absent bare name: %v, want exec.ErrNotFound", err)
	}
	if _, err := fileid.Stat(filepath.Join(dir, "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent path: %v, want fs.ErrNotExist", err)
	}
}

// A deployment renames a new build over the old one: another inode, even
// with the same content.
func TestAFileRenamedOverThePathWasReplaced(t *testing.T) {
	dir := t.TempDir()
	path, next := filepath.Join(dir, "app"), filepath.Join(dir, "app.new")
	write(t, path, "#!/bin/sh\n")
	before, err := fileid.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := before.Differs(before); d != "" {
		t.Errorf("an identity differs from itself: %s", d)
	}
	write(t, next, "#!/bin/sh\n")
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	after, err := fileid.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := before.Differs(after); d != "was replaced: another file is at the path now" {
		t.Errorf("Differs = %q, want the replacement noticed", d)
	}
	if before.String() == after.String() {
		t.Errorf("String is %s for both files", after)
	}
}
