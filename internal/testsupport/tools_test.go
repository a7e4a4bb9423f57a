package testsupport

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// Concurrent first uses install a tool once; a failed install leaves
// nothing, and the next use installs again.
func TestInstallToolInstallsOnceAndNeverHalf(t *testing.T) {
	t.Setenv(ToolCacheEnv, t.TempDir())
	if _, err := InstallTool("broken", "v1", func(dir string) error {
		os.WriteFile(filepath.Join(dir, "half"), nil, 0o644)
		return errors.New("no network")
	}); err == nil {
		t.Fatal("a failed install reported no error")
	}
	if _, err := os.Stat(filepath.Join(ToolCache(), "broken-v1")); !os.IsNotExist(err) {
		t.Fatalf("a failed install left its directory: %v", err)
	}
	var installs atomic.Int32
	var wg sync.WaitGroup
	dirs := make([]string, 8)
	for i := range dirs {
		wg.Go(func() {
			d, err := InstallTool("tool", "v2", func(dir string) error {
				installs.Add(1)
				return os.WriteFile(filepath.Join(dir, "bin"), []byte("x"), 0o755)
			})
			if err != nil {
				t.Error(err)
			}
			dirs[i] = d
		})
	}
	wg.Wait()
	if n := installs.Load(); n != 1 {
		t.Errorf("installed %d times, want once", n)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "bin")); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}
