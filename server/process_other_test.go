//go:build !linux

package server

import "testing"

// The tests that watch a command's process group for its exit use pidfds,
// which only Linux has; elsewhere they are skipped rather than left out of
// the build, so the rest of the package's tests still run.

func watchPids(t *testing.T, _ string) map[int]int {
	t.Skip("watching processes for their exit needs pidfd_open, which only Linux has")
	return nil
}

func awaitExit(t *testing.T, _ map[int]int) {
	t.Skip("watching processes for their exit needs pidfd_open, which only Linux has")
}
