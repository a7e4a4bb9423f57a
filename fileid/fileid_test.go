//go:build linux

package fileid

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestIdentityReadsDeviceInodeAndChangeTimeFromTheStatStructure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	id, err := Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	want := ID{
		dev: st.Dev, ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		mode: 0o755,
	}
	if id != want || id.ino == 0 || id.ctime == 0 {
		t.Errorf("identity = %v\nwant       %v", id, want)
	}
}

// TestRewriteInPlaceIsNoticedEvenWithTheOldModificationTime proves the
// change time is part of the identity: a writer can restore the size and
// the modification time, but not the change time.
func TestRewriteInPlaceIsNoticedEvenWithTheOldModificationTime(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app")
	content := []byte("#!/bin/sh\necho one\n")
	if err := os.WriteFile(path, content, 0o755); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	loaded := Of(fi)
	waitForChangeTimeAfter(t, dir, loaded.ctime)

	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("two\n"), int64(len(content)-4)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}

	now, err := Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if now.size != loaded.size || now.mtime != loaded.mtime {
		t.Fatalf("the rewrite did not keep size and modification time: %v vs %v", now, loaded)
	}
	if d := loaded.Differs(now); d != "was modified in place (size, times or mode differ)" {
		t.Errorf("Differs = %q, want the in-place modification noticed", d)
	}
}

// waitForChangeTimeAfter returns once the file system's clock has passed
// after (file times come from a coarse clock, so two changes close together
// can carry the same time). A probe file is touched until its change time
// is later; this waits on a condition, it asserts nothing about time.
func waitForChangeTimeAfter(t *testing.T, dir string, after int64) {
	t.Helper()
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := os.Chmod(probe, 0o600); err != nil {
			t.Fatal(err)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(probe, &st); err != nil {
			t.Fatal(err)
		}
		if st.Ctim.Nano() > after {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the file system's clock did not advance")
		}
	}
}

func TestFileAndChangedReadTheIdentity(t *testing.T) {
	id := ID{dev: 7, ino: 42, mtime: 2e9, ctime: 5e9}
	if dev, ino := id.File(); dev != 7 || ino != 42 {
		t.Errorf("File() = %d, %d, want 7, 42", dev, ino)
	}
	if got := id.Changed(); !got.Equal(time.Unix(5, 0)) {
		t.Errorf("Changed() = %v, want the change time, the later one", got)
	}
	id.mtime = 9e9 // a modification time set into the future
	if got := id.Changed(); !got.Equal(time.Unix(9, 0)) {
		t.Errorf("Changed() = %v, want the modification time, the later one", got)
	}
}
