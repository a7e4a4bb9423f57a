//go:build !linux

package execrunner

// awaitLeader blocks until the group leader exits. Without Linux's waitid
// WNOWAIT the leader is reaped here, so the group is killed after its id was
// released (a stop racing the exit can signal it too), and a grandchild
// holding the pipe delays the return until the kill grace has passed. Linux
// is the platform fisk-mcp is built for; this keeps the package usable
// elsewhere.
func (p *Process) awaitLeader() {
	p.waitErr, p.reaped = p.cmd.Wait(), true
}
