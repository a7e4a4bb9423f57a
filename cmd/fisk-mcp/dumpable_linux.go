package main

import "golang.org/x/sys/unix"

// hideMemory marks the serving process not dumpable. No core file is
// written, and no other process of the same user can attach to it or
// read its memory, its environment or its descriptors through /proc: the
// bearer token, the approval key, the approver token and the
// environment's secrets are the server's alone. The commands it runs are
// not affected, since exec resets the mark.
func hideMemory() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
