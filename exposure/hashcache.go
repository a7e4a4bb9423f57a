package exposure

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fisk-mcp/fisk-mcp/fileid"
)

// contentCache remembers the SHA-256 of binaries by their identity on this
// host (fileid.ID: device, inode, size, times, mode), one small file per
// binary in dir, so that a start does not hash again a file that has not
// changed since the last one did: for the 37 MB nats CLI that is some 20
// ms of CPU beside its introspection, on every start and every reload.
//
// It trusts exactly what the check before every run trusts: a file whose
// identity is unchanged is the same version (see fileid.ID; a writer
// cannot set the change time back). Two guards keep it that way:
//
//   - a file changed less than settle ago is hashed but not recorded,
//     since file times are kept at a coarse tick and a write within the
//     same tick as an earlier one can leave the identity as it was;
//   - a record is used only when it is a regular file of this user that
//     no one else may write, and when it names exactly the identity of
//     the file being loaded; anything else (another version, a torn or
//     foreign record) is ignored and the file is hashed.
//
// A cache that cannot be read or written costs the hash and nothing else:
// no error of its own reaches a load.
type contentCache struct {
	dir    string
	settle time.Duration
	now    func() time.Time
}

// contentSettle is how long a file must have been left alone before its
// hash is recorded: well past the coarsest tick of a local file system's
// times (one second on some; a few milliseconds on Linux's).
const contentSettle = 2 * time.Second

// recordMagic starts every record: the format, and the hash it holds.
const recordMagic = "fisk-mcp content v1 sha256"

// maxRecord bounds what is read of a record: one line of a few hundred
// bytes.
const maxRecord = 1024

func newContentCache(dir string) *contentCache {
	if dir == "" {
		return nil
	}
	return &contentCache{dir: dir, settle: contentSettle, now: time.Now}
}

// path is the record of the file id identifies, whatever its version: a
// new version overwrites the record of the old one, so the cache holds
// one record per file.
func (c *contentCache) path(id fileid.ID) string {
	dev, ino := id.File()
	return filepath.Join(c.dir, fmt.Sprintf("%x-%x", dev, ino))
}

func record(id fileid.ID, sum digest) string {
	return fmt.Sprintf("%s %s %s\n", recordMagic, hex.EncodeToString(sum[:]), id)
}

// lookup returns the recorded hash of exactly the version id identifies.
func (c *contentCache) lookup(id fileid.ID) (digest, bool) {
	var sum digest
	if c == nil {
		return sum, false
	}
	f, err := os.Open(c.path(id))
	if err != nil {
		return sum, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !ownRecord(fi) {
		return sum, false
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxRecord))
	if err != nil {
		return sum, false
	}
	rest, ok := strings.CutPrefix(string(raw), recordMagic+" ")
	if !ok || len(rest) < 2*len(sum) {
		return sum, false
	}
	if _, err := hex.Decode(sum[:], []byte(rest[:2*len(sum)])); err != nil {
		return sum, false
	}
	if !bytes.Equal(raw, []byte(record(id, sum))) {
		return sum, false // another version of the file, or a torn record
	}
	return sum, true
}

// ownRecord says whether a record can be trusted: a regular file of this
// user that neither its group nor others may write.
func ownRecord(fi fs.FileInfo) bool {
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// store records sum as the hash of the version id identifies, unless that
// version is too recent to be told from the next one (see settle). The
// record is written whole to a temporary file and renamed into place, so
// a reader never sees part of one.
func (c *contentCache) store(id fileid.ID, sum digest) {
	if c == nil || c.now().Sub(id.Changed()) < c.settle {
		return
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(c.dir, ".record-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(record(id, sum))
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), c.path(id)) != nil {
		os.Remove(tmp.Name())
	}
}
