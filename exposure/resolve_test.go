package exposure_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// TestABareNameNotInPATHPointsAtTheWorkingDirectory: a bare name is looked
// up in PATH only; when the working directory has a file by that name the
// error says to write ./NAME, and a directory by that name is told apart.
func TestABareNameNotInPATHPointsAtTheWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fisk-demo-here"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "fisk-demo-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct{ name, want string }{
		{"fisk-demo-here", `app "fisk-demo-here": not found in PATH; for the file in this directory write ./fisk-demo-here`},
		{"fisk-demo-dir", `app "fisk-demo-dir": not found in PATH, and ./fisk-demo-dir is a directory; pass the path to a fisk binary`},
		{"fisk-demo-nowhere", `app "fisk-demo-nowhere": not found in PATH; pass the path to a fisk binary`},
	} {
		_, err := exposure.ResolveBinary(tc.name)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := exposure.ResolveBinary("./fisk-demo-here"); err != nil {
		t.Errorf("./fisk-demo-here: %v", err)
	}
}
