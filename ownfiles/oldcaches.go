package ownfiles

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// RemoveOldCaches removes what earlier versions of fisk-mcp kept under
// the user's cache directory, fisk-mcp/lists (lists of tools) and
// fisk-mcp/content (hashes of binaries), and only what it can prove they
// wrote: in a real directory (no link) of the user's that others may not
// write, a regular file of the user's whose name and content are those of
// a record (or of a record's temporary file); then the directories, once
// empty. Anything else stays where it is. It is meant to be called once,
// at start-up, and returns how many files it removed; it reports no error,
// since nothing depends on it.
func RemoveOldCaches() (removed int) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return 0
	}
	top, err := openOwnDir(nil, filepath.Join(cache, "fisk-mcp"))
	if err != nil {
		return 0
	}
	defer top.Close()
	for sub, isRecord := range map[string]func(name string, data []byte) bool{"lists": isListRecord, "content": isContentRecord} {
		if dir, err := openOwnDir(top, sub); err == nil {
			removed += removeRecords(dir, isRecord)
			dir.Close()
			top.Remove(sub) // only if empty
		}
	}
	os.Remove(top.Name()) // only if empty
	return removed
}

// openOwnDir opens name, in parent or else from the current directory,
// if it is a real directory (not a link) of the user's that others may
// not write.
func openOwnDir(parent *os.Root, name string) (*os.Root, error) {
	lstat, open := os.Lstat, os.OpenRoot
	if parent != nil {
		lstat, open = parent.Lstat, parent.OpenRoot
	}
	fi, err := lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", name)
	}
	root, err := open(name)
	if err != nil {
		return nil, err
	}
	opened, err := root.Stat(".")
	if err == nil && !os.SameFile(fi, opened) {
		err = fmt.Errorf("%s changed while opened", name)
	}
	if err == nil {
		err = own(name, opened)
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}

// maxOldRecord bounds a record read: the larger format's bound.
const maxOldRecord = 16 << 20

func removeRecords(dir *os.Root, isRecord func(name string, data []byte) bool) (removed int) {
	d, err := dir.Open(".")
	if err != nil {
		return 0
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return 0
	}
	for _, e := range entries {
		fi, err := dir.Lstat(e.Name())
		if err != nil || !fi.Mode().IsRegular() || owner(fi) != os.Geteuid() || fi.Size() > maxOldRecord {
			continue
		}
		f, err := dir.OpenFile(e.Name(), os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, maxOldRecord+1))
		opened, serr := f.Stat()
		f.Close()
		if err == nil && serr == nil && os.SameFile(fi, opened) && isRecord(e.Name(), data) && dir.Remove(e.Name()) == nil {
			removed++
		}
	}
	return removed
}

// A list record (internal/listcache, until it went) is named by its key
// in hex: the magic, the key, the list, and the SHA-256 of all before it.
const listMagic = "fisk-mcp early list v1\n"

func isListRecord(name string, data []byte) bool {
	if isTemporary(name, data, listMagic) {
		return true
	}
	key, err := hex.DecodeString(name)
	if err != nil || len(key) != sha256.Size || name != strings.ToLower(name) || len(data) < len(listMagic)+sha256.Size+1+sha256.Size {
		return false
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	got := sha256.Sum256(body)
	return bytes.Equal(got[:], sum) && bytes.HasPrefix(body, append([]byte(listMagic), key...))
}

// A content record (exposure's hash cache, until it went) is named
// DEV-INO in hex, and is one line: the magic, the hash, the file's
// identity.
var contentRecord = regexp.MustCompile(`\Afisk-mcp content v1 sha256 [0-9a-f]{64} dev=([0-9]+) ino=([0-9]+) size=[0-9]+ mtime=-?[0-9]+ ctime=-?[0-9]+ mode=[0-7]+\n\z`)

func isContentRecord(name string, data []byte) bool {
	if isTemporary(name, data, "fisk-mcp content v1 sha256") {
		return true
	}
	m := contentRecord.FindSubmatch(data)
	if m == nil || len(data) > 1024 {
		return false
	}
	var dev, ino uint64
	if _, err := fmt.Sscan(string(m[1])+" "+string(m[2]), &dev, &ino); err != nil {
		return false
	}
	return name == fmt.Sprintf("%x-%x", dev, ino)
}

// isTemporary says whether name and data are those of a record's
// temporary file (os.CreateTemp's ".record-*") left by an interrupted
// write: what it holds is the beginning of a record.
func isTemporary(name string, data []byte, magic string) bool {
	digits, ok := strings.CutPrefix(name, ".record-")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return false
	}
	return bytes.HasPrefix(data, []byte(magic)) || strings.HasPrefix(magic, string(data))
}
