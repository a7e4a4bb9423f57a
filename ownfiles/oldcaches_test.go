package ownfiles_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/ownfiles"
)

// listRecord is a record as internal/listcache wrote it, and its name.
func listRecord(seed byte) (string, []byte) {
	key := sha256.Sum256([]byte{seed})
	body := append([]byte("fisk-mcp early list v1\n"), key[:]...)
	body = append(body, 0, 1, 2, 3)
	sum := sha256.Sum256(body)
	return hex.EncodeToString(key[:]), append(body, sum[:]...)
}

// contentRecord is a record as exposure's hash cache wrote it, and its
// name.
func contentRecord(dev, ino uint64) (string, []byte) {
	sum := sha256.Sum256([]byte{byte(ino)})
	return fmt.Sprintf("%x-%x", dev, ino), fmt.Appendf(nil, "fisk-mcp content v1 sha256 %x dev=%d ino=%d size=5 mtime=1 ctime=2 mode=755\n", sum, dev, ino)
}

// oldLayout fills dir, as earlier versions did: two lists, two hashes and
// a temporary file of each.
func oldLayout(t *testing.T, dir string) {
	t.Helper()
	files := map[string][]byte{}
	for i := range 2 {
		name, data := listRecord(byte(i))
		files[filepath.Join("lists", name)] = data
		name, data = contentRecord(0xfd01, uint64(1000+i))
		files[filepath.Join("content", name)] = data
	}
	_, list := listRecord(9)
	files["lists/.record-123456"] = list[:40]
	files["content/.record-987654"] = []byte("fisk-mcp content")
	for name, data := range files {
		put(t, filepath.Join(dir, name), data)
	}
}

func put(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// tree lists every path under dir.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if rel, _ := filepath.Rel(dir, path); rel != "." && err == nil {
			paths = append(paths, rel)
		}
		return err
	})
	return paths
}

func TestRemoveOldCachesRemovesWhatEarlierVersionsWrote(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache) // ~/Library/Caches on macOS
	dir, _ := os.UserCacheDir()
	oldLayout(t, filepath.Join(dir, "fisk-mcp"))
	if n := ownfiles.RemoveOldCaches(); n != 6 {
		t.Errorf("removed %d files, want the layout's 6", n)
	}
	if left := tree(t, dir); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}

func TestRemoveOldCachesLeavesWhatItCannotProveItWrote(t *testing.T) {
	for _, tc := range []struct {
		name string
		// prepare lays out dir, the cache's fisk-mcp directory, and
		// returns the directories whose content must stay as it is.
		prepare func(t *testing.T, dir string) []string
	}{
		{"lists a link to a directory of records", func(t *testing.T, dir string) []string {
			elsewhere := filepath.Join(filepath.Dir(dir), "elsewhere")
			oldLayout(t, elsewhere)
			os.MkdirAll(dir, 0o700)
			os.Symlink(filepath.Join(elsewhere, "lists"), filepath.Join(dir, "lists"))
			return []string{elsewhere}
		}},
		{"lists a link to records beside it", func(t *testing.T, dir string) []string {
			oldLayout(t, filepath.Join(dir, "kept"))
			os.Symlink(filepath.Join("kept", "lists"), filepath.Join(dir, "lists"))
			return []string{filepath.Join(dir, "kept")}
		}},
		{"fisk-mcp a link of another user to theirs", func(t *testing.T, dir string) []string {
			victim := filepath.Join(filepath.Dir(dir), "victim")
			oldLayout(t, victim)
			os.Symlink(victim, dir)
			testsupport.GiveAway(t, dir)
			return []string{victim}
		}},
		{"records of another user", func(t *testing.T, dir string) []string {
			oldLayout(t, dir)
			giveAwayAll(t, dir)
			return []string{dir}
		}},
		{"records in directories of another user", func(t *testing.T, dir string) []string {
			oldLayout(t, dir)
			testsupport.GiveAway(t, filepath.Join(dir, "lists"), filepath.Join(dir, "content"))
			return []string{dir}
		}},
		{"records in directories others may write", func(t *testing.T, dir string) []string {
			oldLayout(t, dir)
			os.Chmod(filepath.Join(dir, "lists"), 0o777)
			os.Chmod(filepath.Join(dir, "content"), 0o777)
			return []string{dir}
		}},
		{"files that are not records", func(t *testing.T, dir string) []string {
			name, list := listRecord(1)
			cname, content := contentRecord(1, 2)
			put(t, filepath.Join(dir, "lists", name), list[:len(list)-1])                              // torn
			put(t, filepath.Join(dir, "lists", cname), list)                                           // misnamed
			put(t, filepath.Join(dir, "lists", "notes.txt"), []byte("mine"))                           // foreign
			put(t, filepath.Join(dir, "lists", ".record-1x"), []byte("fisk-mcp"))                      // not a temporary's name
			put(t, filepath.Join(dir, "content", "1-3"), content)                                      // another file's identity
			put(t, filepath.Join(dir, "content", name), content)                                       // misnamed
			put(t, filepath.Join(dir, "content", ".record-5"), []byte("hello"))                        // not a record's beginning
			os.Symlink(filepath.Join(dir, "lists", "notes.txt"), filepath.Join(dir, "content", cname)) // a link
			return []string{dir}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			t.Setenv("HOME", cache)
			base, _ := os.UserCacheDir()
			dir := filepath.Join(base, "fisk-mcp")
			keep := tc.prepare(t, dir)
			before := map[string][]string{}
			for _, k := range keep {
				before[k] = tree(t, k)
			}
			ownfiles.RemoveOldCaches()
			for _, k := range keep {
				if after := tree(t, k); !slices.Equal(after, before[k]) {
					t.Errorf("%s held %v, now %v", k, before[k], after)
				}
			}
		})
	}
}

func giveAwayAll(t *testing.T, dir string) {
	t.Helper()
	for _, p := range tree(t, dir) {
		if p := filepath.Join(dir, p); !isDir(p) {
			testsupport.GiveAway(t, p)
		}
	}
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}
