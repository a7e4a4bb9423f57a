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

	"github.com/fisk-mcp/fisk-mcp/internal/fileid"
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
// It is fixed once: by Load, from the file it introspected (see
// introspectApp), or, for a model the caller supplied, on first use, from
// the file at the path then.
type loadedBinary struct {
	path string
	once sync.Once
	id   fileid.ID
	err  error // the file could not be examined: no call may run
	sum  digest
	// sumErr says why the content could not be read (an execute-only
	// file can be run but not opened); the binding then falls back to the
	// file's identity, which no other host shares.
	sumErr error
}

// fixedBinary returns the binary as Load recorded it.
func fixedBinary(path string, id fileid.ID, c content) *loadedBinary {
	b := &loadedBinary{path: path}
	b.once.Do(func() { b.id, b.sum, b.sumErr = id, c.sum, c.err })
	return b
}

// get fixes the binary on first use, from the file at the path now: the
// identity is that of the file whose content was hashed.
func (b *loadedBinary) get() *loadedBinary {
	b.once.Do(func() {
		c := contentOf(b.path, nil)
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
	return b
}

// bindingKey is the binary's part of a command's binding: its content, or,
// when that could not be read, what stands in for it on this host only.
func (b *loadedBinary) bindingKey() string {
	b = b.get()
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
// With a cache (nil: none), the recorded hash of exactly that identity is
// taken instead of reading the file, and a hash read is recorded.
func contentOf(path string, cache *contentCache) content {
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
	if sum, ok := cache.lookup(c.id); ok {
		c.sum, c.idAfter = sum, c.id
		return c
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return content{err: fmt.Errorf("reading %s: %w", path, err)}
	}
	h.Sum(c.sum[:0])
	if fi, err = f.Stat(); err != nil {
		return content{err: err}
	}
	c.idAfter = fileid.Of(fi)
	if c.idAfter == c.id {
		cache.store(c.id, c.sum)
	}
	return c
}

// hashConcurrently starts contentOf(path) and returns where its result
// arrives, so the hash costs no time beside an introspection, which takes
// as long (about 25 ms each for the 37 MB nats CLI).
func hashConcurrently(path string, cache *contentCache) <-chan content {
	ch := make(chan content, 1) // never blocks: an abandoned result is dropped
	go func() { ch <- contentOf(path, cache) }()
	return ch
}
