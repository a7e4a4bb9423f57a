//go:build !linux

package introspect

// awaitLeader cannot wait for an exit without reaping outside Linux: it
// reports false at once, and the group is then killed only on a cancel or a
// timeout. Linux is the platform fisk-mcp is built for.
func awaitLeader(int) bool { return false }
