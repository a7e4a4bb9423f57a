//go:build !unix

package introspect

import "os/exec"

// ownGroup is a no-op where process groups do not exist: a cancel kills the
// child only (os/exec's default).
func ownGroup(*exec.Cmd) {}
