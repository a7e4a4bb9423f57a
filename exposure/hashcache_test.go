package exposure

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/fileid"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// settledCache is a cache in a fresh directory whose clock runs an hour
// ahead, so that a file written by the test counts as settled.
func settledCache(t *testing.T) *contentCache {
	c := newContentCache(filepath.Join(t.TempDir(), "content"))
	c.now = func() time.Time { return time.Now().Add(time.Hour) }
	return c
}

func writeApp(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func identity(t *testing.T, path string) fileid.ID {
	t.Helper()
	id, err := fileid.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// forge records sum as the hash of the file at path as it is now.
func forge(t *testing.T, c *contentCache, path string, sum digest) {
	t.Helper()
	c.store(identity(t, path), sum)
	if got, ok := c.lookup(identity(t, path)); !ok || got != sum {
		t.Fatalf("the forged record was not stored: %x, %v", got, ok)
	}
}

func wantSum(t *testing.T, got content, body string) {
	t.Helper()
	if got.err != nil {
		t.Fatal(got.err)
	}
	if want := sha256.Sum256([]byte(body)); got.sum != want {
		t.Errorf("sum = %x, want the hash of the file's bytes %x", got.sum, want)
	}
	if got.id != got.idAfter {
		t.Errorf("identity %v before, %v after", got.id, got.idAfter)
	}
}

func TestContentCacheRecordsAHashAndTakesItForTheSameVersion(t *testing.T) {
	c := settledCache(t)
	path := filepath.Join(t.TempDir(), "app")
	writeApp(t, path, "one")
	wantSum(t, contentOf(path, c), "one")
	if sum, ok := c.lookup(identity(t, path)); !ok || sum != sha256.Sum256([]byte("one")) {
		t.Fatalf("record = %x, %v; want the hash just read", sum, ok)
	}
	// The record stands in for reading: a forged one is taken as it is,
	// which proves the file is not read again.
	forged := digest{1, 2, 3}
	forge(t, c, path, forged)
	if got := contentOf(path, c); got.err != nil || got.sum != forged || got.id != identity(t, path) {
		t.Errorf("contentOf = %x (%v), want the recorded %x", got.sum, got.err, forged)
	}
}

func TestContentCacheHashesAnotherVersionOfTheFileAgain(t *testing.T) {
	c := settledCache(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "app")
	writeApp(t, path, "one")
	forge(t, c, path, digest{1})
	waitForChange(t, dir, identity(t, path))
	// Rewritten in place (same inode, the same record file).
	writeApp(t, path, "two")
	wantSum(t, contentOf(path, c), "two")
	// Replaced by another file.
	next := filepath.Join(dir, "next")
	writeApp(t, next, "three")
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	wantSum(t, contentOf(path, c), "three")
}

func TestContentCacheRecordsNothingForAFileChangedJustNow(t *testing.T) {
	c := newContentCache(filepath.Join(t.TempDir(), "content"))
	path := filepath.Join(t.TempDir(), "app")
	writeApp(t, path, "one")
	wantSum(t, contentOf(path, c), "one")
	if _, ok := c.lookup(identity(t, path)); ok {
		t.Error("a file written just now was recorded: a write in the same tick would leave its identity as it was")
	}
	entries, _ := os.ReadDir(c.dir)
	if len(entries) != 0 {
		t.Errorf("the cache holds %d files, want none", len(entries))
	}
}

func TestContentCacheIgnoresARecordItCannotTrust(t *testing.T) {
	for name, spoil := range map[string]func(t *testing.T, record string){
		"writable by others": func(t *testing.T, record string) {
			if err := os.Chmod(record, 0o666); err != nil {
				t.Fatal(err)
			}
		},
		"writable by the group": func(t *testing.T, record string) {
			if err := os.Chmod(record, 0o620); err != nil {
				t.Fatal(err)
			}
		},
		"torn": func(t *testing.T, record string) {
			if err := os.Truncate(record, 40); err != nil {
				t.Fatal(err)
			}
		},
		"of another version": func(t *testing.T, record string) {
			raw, err := os.ReadFile(record)
			if err != nil {
				t.Fatal(err)
			}
			raw[len(raw)-3] ^= 1 // a digit of the mode
			if err := os.WriteFile(record, raw, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"not a regular file": func(t *testing.T, record string) {
			if err := os.Remove(record); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(record, 0o700); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := settledCache(t)
			path := filepath.Join(t.TempDir(), "app")
			writeApp(t, path, "one")
			forge(t, c, path, digest{9})
			spoil(t, c.path(identity(t, path)))
			wantSum(t, contentOf(path, c), "one")
		})
	}
}

func TestContentCacheThatCannotBeWrittenCostsOnlyTheHash(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "not-a-dir")
	writeApp(t, blocked, "")
	c := settledCache(t)
	c.dir = filepath.Join(blocked, "content")
	path := filepath.Join(dir, "app")
	writeApp(t, path, "one")
	wantSum(t, contentOf(path, c), "one")
	wantSum(t, contentOf(path, c), "one")
}

// A load takes the recorded hash into the tools' bindings, and the usual
// checks of the file's identity still stand beside it.
func TestLoadBindsToolsToTheRecordedHash(t *testing.T) {
	c := settledCache(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "app")
	doc := `{"name":"app","commands":[{"name":"status","help":"Show status",` +
		`"schema":{"type":"object"},"restricted_schema":{"type":"object","additionalProperties":false}}]}`
	writeApp(t, path, "#!/bin/sh\nprintf '%s\\n' '"+doc+"'\n")
	load := func() string {
		t.Helper()
		la, err := introspectApp(context.Background(), App{Path: path}, introspect.Options{}, c)
		if err != nil {
			t.Fatal(err)
		}
		return la.binary.bindingKey()
	}
	fresh := load()
	forged := digest{7}
	forge(t, c, path, forged)
	if got, want := load(), "sha256: "+hex.EncodeToString(forged[:]); got != want {
		t.Errorf("binding key = %q, want the recorded hash", got)
	}
	waitForChange(t, dir, identity(t, path))
	writeApp(t, path, "#!/bin/sh\nprintf '%s\\n' '"+doc+"'\n")
	if got := load(); got != fresh {
		t.Errorf("binding key after a rewrite with the same bytes = %q, want the hash of the bytes %q", got, fresh)
	}
}

// waitForChange waits until a file written in dir gets a change time after
// id's, so that a rewrite is told from the version id identifies; it
// polls the file system's own clock, not a timer.
func waitForChange(t *testing.T, dir string, id fileid.ID) {
	t.Helper()
	probe := filepath.Join(dir, ".probe")
	for range 1_000_000 {
		writeApp(t, probe, "")
		if p := identity(t, probe); p.Changed().After(id.Changed()) {
			return
		}
	}
	t.Fatal("the file system's clock did not move")
}

// A load hashes nothing: the content is read when a binding first needs
// it, once for all the binary's tools, and recorded then.
func TestLoadLeavesTheHashToTheFirstBinding(t *testing.T) {
	c := settledCache(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "app")
	doc := `{"name":"app","commands":[{"name":"status","help":"Show status",` +
		`"schema":{"type":"object"},"restricted_schema":{"type":"object","additionalProperties":false}},` +
		`{"name":"stop","help":"Stop","schema":{"type":"object"},"restricted_schema":{"type":"object","additionalProperties":false}}]}`
	writeApp(t, path, "#!/bin/sh\nprintf '%s\\n' '"+doc+"'\n")
	la, err := introspectApp(context.Background(), App{Path: path}, introspect.Options{}, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.lookup(identity(t, path)); ok {
		t.Fatal("the load hashed the binary")
	}
	set, err := Build([]LoadedApp{la}, nil, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.lookup(identity(t, path)); ok {
		t.Fatal("building the set hashed the binary")
	}
	set.HashBinaries()
	if _, ok := c.lookup(identity(t, path)); !ok {
		t.Fatal("HashBinaries recorded no hash")
	}
	raw, _ := os.ReadFile(path)
	if got, want := la.binary.bindingKey(), "sha256: "+hex.EncodeToString(sha256Of(raw)); got != want {
		t.Errorf("binding key = %q, want %q", got, want)
	}
}

func sha256Of(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}
