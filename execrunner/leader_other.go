//go:build !linux

package execrunner

// awaitLeader blocks until the group leader exits. Without Linux's waitid
// WNOWAIT the leader is reaped here, so the group is killed after its id was
// released, and a grandchild holding the pipe delays the return until
// WaitDelay.
func (p *Process) awaitLeader() {
	p.waitErr, p.reaped = p.cmd.Wait(), true
}
