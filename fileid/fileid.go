// Package fileid tells one version of a file from another without reading
// it, from what a stat reports. fisk-mcp records the identity of the
// binary it introspected, checks it again before each run, and polls it to
// notice a binary that was replaced: all three use this one identity, so
// "changed" means the same thing to each of them.
//
// It deliberately does not hash the content (see [ID]) and does not open
// the file. An identity is local to one host; what must be the same on
// every replica (an approval's binding) uses a hash of the content, taken
// once per load by package exposure.
package fileid

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"time"
)

// ID identifies one version of a file: device and inode change when
// another file is renamed over the path; size, modification time and
// status-change time change when the file is rewritten in place. The
// change time cannot be set back by the writer, so restoring the
// modification time does not hide a rewrite. IDs are comparable with ==.
//
// The content is deliberately not hashed here: hashing a large binary
// costs as much as introspecting it (BenchmarkStartup's content-hash in
// integration/nats), which a load affords once but the check before each
// exec does not, while a stat costs next to nothing.
type ID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds since the epoch
	mode         fs.FileMode
}

// Stat returns the identity of the file a command at path would run: a
// bare name is looked up in PATH, as os/exec does, so the file examined is
// the one that would be executed. Errors are those of [exec.LookPath] and
// [os.Stat]; a missing file satisfies errors.Is(err, fs.ErrNotExist) or
// errors.Is(err, exec.ErrNotFound).
func Stat(path string) (ID, error) {
	if !strings.ContainsRune(path, filepath.Separator) {
		found, err := exec.LookPath(path)
		if err != nil {
			return ID{}, err
		}
		path = found
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ID{}, err
	}
	return Of(fi), nil
}

// Of reads the identity from fi. Device, inode and change time are not
// part of fs.FileInfo; they are read by field name from the platform's
// stat structure (Dev, Ino, and Ctim on Linux or Ctimespec on macOS and
// the BSDs), which keeps this file free of build tags. A field a platform
// lacks stays zero, and the others still tell files apart.
func Of(fi fs.FileInfo) ID {
	id := ID{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
	st := reflect.Indirect(reflect.ValueOf(fi.Sys()))
	if st.Kind() != reflect.Struct {
		return id
	}
	id.dev = integerField(st, "Dev")
	id.ino = integerField(st, "Ino")
	for _, name := range []string{"Ctim", "Ctimespec"} {
		if ts := st.FieldByName(name); ts.Kind() == reflect.Struct {
			id.ctime = int64(integerField(ts, "Sec"))*int64(time.Second) + int64(integerField(ts, "Nsec"))
		}
	}
	return id
}

// integerField is the named integer field of the struct v, or 0.
func integerField(v reflect.Value, name string) uint64 {
	f := v.FieldByName(name)
	switch {
	case f.CanInt():
		return uint64(f.Int())
	case f.CanUint():
		return f.Uint()
	}
	return 0
}

// Differs says how o differs from id, for a message that follows the
// file's path ("/usr/bin/nats was replaced: ..."); "" when it does not.
func (id ID) Differs(o ID) string {
	switch {
	case id.dev != o.dev || id.ino != o.ino:
		return "was replaced: another file is at the path now"
	case id == o:
		return ""
	}
	return "was modified in place (size, times or mode differ)"
}

// File is the device and inode of id: which file it is, whatever its
// version.
func (id ID) File() (dev, ino uint64) { return id.dev, id.ino }

// Changed is the later of id's modification and status-change times: when
// the file was last written, or its metadata last changed.
func (id ID) Changed() time.Time { return time.Unix(0, max(id.mtime, id.ctime)) }

// String is a canonical form of id, written into a tool's binding.
func (id ID) String() string {
	return fmt.Sprintf("dev=%d ino=%d size=%d mtime=%d ctime=%d mode=%o", id.dev, id.ino, id.size, id.mtime, id.ctime, uint32(id.mode))
}
