// Package ownfiles writes files outside fisk-mcp's own tree — client
// configurations, their backups, bundles — as files in someone else's
// house: only into a directory that is the user's own and that no one else
// may write, never through a symbolic link that neither the user nor root
// made, and never removing a file it cannot prove it wrote.
//
// A file is replaced atomically: written whole to a temporary file beside
// it, synced, then renamed over it, so a reader sees the old or the new
// file and a failure leaves the old one. Every operation after the checks
// goes through the directory as opened and checked (an [os.Root]), so a
// path renamed meanwhile cannot send a write elsewhere.
//
// It does not decide what a file holds, nor whether a user may keep a
// configuration behind a link of their own (a dotfile kept in a
// repository): such a link, owned by the user, is followed.
package ownfiles

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrNotOwn is the error of a path that leads outside the user's own
// files: a directory of another user, one others may write, or a link of
// another user.
var ErrNotOwn = errors.New("not the user's own")

// Resolve returns the path path names with its symbolic links followed,
// each of which must be the user's or root's; the file itself need not
// exist, nor the directories after the last one that does.
func Resolve(path string) (string, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	cur, rest, links := "/", strings.Split(path, "/"), 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if uid := owner(fi); uid != os.Geteuid() && uid != 0 {
			return "", fmt.Errorf("%s is a symbolic link of another user (uid %d): %w; fisk-mcp follows only links of yours, so give the path of the file itself", next, uid, ErrNotOwn)
		}
		if links++; links > 40 {
			return "", fmt.Errorf("%s: too many levels of symbolic links; give the path of the file itself", path)
		}
		to, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(to) {
			cur = "/"
		}
		rest = append(strings.Split(to, "/"), rest...)
	}
	return cur, nil
}

// Dir is a directory of the user's own that no one else may write, open:
// what is done through it is done in the directory that was checked.
type Dir struct {
	root *os.Root
}

// OpenDir resolves path (see [Resolve]), creates what is missing of it
// (mode 0700) and opens it, refusing a directory that is not the user's
// own or that its group or others may write.
func OpenDir(path string) (*Dir, error) {
	path, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	if err := mkdirAll(path); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	fi, err := root.Stat(".")
	if err == nil {
		err = own(path, fi)
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	return &Dir{root: root}, nil
}

// mkdirAll makes what is missing of path, only in a directory of the
// user's own: the one it would make would be theirs, wherever it is.
func mkdirAll(path string) error {
	parent := path
	for {
		fi, err := os.Stat(parent)
		if err == nil {
			if parent == path {
				return nil
			}
			if err := own(parent, fi); err != nil {
				return err
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || parent == filepath.Dir(parent) {
			return err
		}
		parent = filepath.Dir(parent)
	}
	if err := os.MkdirAll(path, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	return nil
}

// own refuses a directory of another user, or one its group or others
// may write.
func own(path string, fi fs.FileInfo) error {
	if uid := owner(fi); uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user (uid %d): %w; fisk-mcp writes only into your own directories, so give a path in one", path, uid, ErrNotOwn)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s may be written by others (mode %v): %w; remove their write permission (chmod go-w) or give a path in another directory", path, fi.Mode().Perm(), ErrNotOwn)
	}
	return nil
}

func owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.root.Name() }

// Close closes the directory.
func (d *Dir) Close() error { return d.root.Close() }

// ReadFile reads the file name in the directory.
func (d *Dir) ReadFile(name string) ([]byte, error) { return d.root.ReadFile(name) }

// WriteNew writes data to name, a new file of mode perm: an existing name
// is fs.ErrExist, and nothing is left of a failed write.
func (d *Dir) WriteNew(name string, data []byte, perm fs.FileMode) error {
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		d.remove(name, f)
	}
	return errors.Join(err, f.Close())
}

// WriteFile replaces the file at path (a link of the user's is followed)
// with what write writes, atomically, in a directory that must be the
// user's own (see OpenDir); with exclusive, a file already at path is
// left alone and the error is fs.ErrExist. Nothing is left of a failed
// write.
func WriteFile(path string, exclusive bool, write func(io.Writer) error) error {
	path, err := Resolve(path)
	if err != nil {
		return err
	}
	dir, err := OpenDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	name := filepath.Base(path)
	if exclusive {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		return dir.WriteNew(name, b.Bytes(), 0o644)
	}
	f, err := dir.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Discard()
		return err
	}
	return f.Commit()
}

// File is the new content of a file, written beside it until Commit
// renames it into place.
type File struct {
	*os.File
	dir  *Dir
	name string // the file it replaces
	tmp  string
	done bool
}

// Create begins replacing name in the directory: a temporary file beside
// it, of the mode of the file it replaces, or 0600 (it may hold secrets).
func (d *Dir) Create(name string) (*File, error) {
	mode := fs.FileMode(0o600)
	if fi, err := d.root.Lstat(name); err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
	}
	tmp := "." + name + "." + rand.Text()[:12] + ".tmp"
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w; the file is unchanged (its directory must be writable)", filepath.Join(d.Path(), name), err)
	}
	if err := f.Chmod(mode); err != nil { // past the umask
		d.remove(tmp, f)
		f.Close()
		return nil, err
	}
	return &File{File: f, dir: d, name: name, tmp: tmp}, nil
}

// Commit syncs the new content and renames it over the file.
func (f *File) Commit() error {
	err := f.Sync()
	if err == nil {
		err = f.dir.root.Rename(f.tmp, f.name)
	}
	if err != nil {
		f.Discard()
		return fmt.Errorf("writing %s: %w; the file is unchanged", filepath.Join(f.dir.Path(), f.name), err)
	}
	f.done = true
	return f.File.Close()
}

// Discard drops the new content; after Commit it does nothing.
func (f *File) Discard() {
	if f.done {
		return
	}
	f.done = true
	f.dir.remove(f.tmp, f.File)
	f.File.Close()
}

// remove removes name only while it is still the file f, the one this
// process created: another file put in its place stays.
func (d *Dir) remove(name string, f *os.File) {
	mine, err := f.Stat()
	if err != nil {
		return
	}
	if there, err := d.root.Lstat(name); err == nil && os.SameFile(mine, there) {
		d.root.Remove(name)
	}
}
