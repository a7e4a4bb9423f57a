//go:build !unix

package introspect

import "os/exec"

// ownGroup is a no-op where process groups do not exist: only the child
// itself is killed.
func ownGroup(*exec.Cmd) {}

// killGroup is a no-op where process groups do not exist.
func killGroup(int) {}
