package ownfiles

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Lock holds an exclusive lock (flock) on the directory until unlock is
// called, for a read-change-write of a file in it that another fisk-mcp
// may be changing too. The lock is on the directory, not the file: a
// lock on the file is lost when a new one is renamed over it, and a lock
// file beside it would be left in the person's directory (a project's
// .vscode, say) for good. Programs that do not take it are not held off:
// see the check before a rename that callers make.
func (d *Dir) Lock() (unlock func(), err error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", d.Path(), err)
	}
	return func() { f.Close() }, nil
}
