package exposure

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fisk-mcp/fisk-mcp/fileid"
)

// loadedBinary is the file an application's commands run, as it was when
// its tools were loaded, shared by all of them. It holds two things for two
// jobs:
//
//   - id, the file's identity on this host (device, inode, size, times),
//     which the check before each run compares with a stat (see
//     commandTool.checkBinary): cheap enough for every exec, and local;
//   - sum, the SHA-256 of the file's content, which goes into every
//     command's binding (see bindingOf): the same on every replica that
//     serves the same bytes, whatever their inodes and times.
//
// The identity is fixed once: by Load, from the file it introspected (see
// introspectApp), or, for a model the caller supplied, on first use, from
// the file at the path then. The content is fixed with it, except for a
// binary Load introspected: its hash is taken when a binding first needs
// it, or when the caller asks for it (ToolSet.HashBinaries), so that a
// start does not hash a 37 MB CLI on the CPUs its introspection and the
// client's first list need.
type loadedBinary struct {
	path string
	once sync.Once
	id   fileid.ID
	err  error // the file could not be examined: no call may run

	hashOnce sync.Once
	sum      digest
	// sumErr says why the content could not be read (an execute-only
	// file can be run but not opened) or does not stand for the file
	// loaded (it changed before it was hashed); the binding then falls
	// back to the file's identity, which no other host shares.
	sumErr error
}

// introspectedBinary returns the binary Load introspected, the file of
// identity id throughout, its content to be hashed later (see content).
func introspectedBinary(path string, id fileid.ID) *loadedBinary {
	b := &loadedBinary{path: path}
	b.once.Do(func() { b.id = id })
	return b
}

// get fixes the binary's identity on first use, from the file at the path
// now, with the hash of that very file's content.
func (b *loadedBinary) get() *loadedBinary {
	b.once.Do(func() {
		c := contentOf(b.path)
		b.hashOnce.Do(func() {
			if c.err == nil && c.id == c.idAfter {
				b.id, b.sum = c.id, c.sum
				return
			}
			b.id, b.err = fileid.Stat(b.path)
			b.sumErr = c.err
			if c.err == nil {
				b.sumErr = errors.New("the file changed while it was read")
			}
		})
	})
	return b
}

// content fixes the binary's identity (see get) and its content's hash:
// for a binary introspected by Load, on first use, from the file at the
// path then. The bytes hashed stand for the file introspected only when
// they are of its identity from open to end: the identity that the check
// before each run holds calls to, and that a writer cannot keep while
// changing the file. Otherwise the file changed since, no call of its
// tools can run (checkBinary refuses them), and the binding falls back to
// the identity.
func (b *loadedBinary) content() *loadedBinary {
	b = b.get()
	b.hashOnce.Do(func() {
		c := contentOf(b.path)
		switch {
		case c.err != nil:
			b.sumErr = c.err
		case c.id != b.id || c.idAfter != b.id:
			d := b.id.Differs(c.id)
			if d == "" {
				d = b.id.Differs(c.idAfter)
			}
			b.sumErr = fmt.Errorf("the file changed after it was introspected: it %s", d)
		default:
			b.sum = c.sum
		}
	})
	return b
}

// bindingKey is the binary's part of a command's binding: its content, or,
// when that could not be read, what stands in for it on this host only.
func (b *loadedBinary) bindingKey() string {
	b = b.content()
	switch {
	case b.err != nil:
		return "unexaminable: " + b.err.Error()
	case b.sumErr != nil:
		return "local identity: " + b.id.String()
	}
	return "sha256: " + hex.EncodeToString(b.sum[:])
}

// loadedBinary returns the binary a's commands are bound to: the one Load
// recorded, or, for a model from elsewhere, one fixed when first used.
func (a *LoadedApp) loadedBinary() *loadedBinary {
	if a.binary != nil {
		return a.binary
	}
	return &loadedBinary{path: a.Path}
}

// content is the SHA-256 of one opened file, with that file's identity as
// it was when opened (id) and once read to the end (idAfter).
type content struct {
	id, idAfter fileid.ID
	sum         digest
	err         error
}

// contentOf hashes the file a command at path would run (a bare name is
// looked up in PATH, as fileid.Stat and os/exec do). The identity comes
// from the opened descriptor, not from the path, so it is the identity of
// the bytes hashed even if another file is renamed over the path meanwhile.
func contentOf(path string) content {
	if !strings.ContainsRune(path, filepath.Separator) {
		found, err := exec.LookPath(path)
		if err != nil {
			return content{err: err}
		}
		path = found
	}
	f, err := os.Open(path)
	if err != nil {
		return content{err: err}
	}
	defer f.Close()
	var c content
	fi, err := f.Stat()
	if err != nil {
		return content{err: err}
	}
	c.id = fileid.Of(fi)
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return content{err: fmt.Errorf("reading %s: %w", path, err)}
	}
	h.Sum(c.sum[:0])
	if fi, err = f.Stat(); err != nil {
		return content{err: err}
	}
	c.idAfter = fileid.Of(fi)
	return c
}
