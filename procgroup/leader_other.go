//go:build !linux

package procgroup

// awaitLeader blocks until the group leader exits. Without Linux's waitid
// WNOWAIT the leader is reaped here, so the group is killed after its id
// was released (a stop racing the exit can signal it too), and a
// grandchild holding a pipe delays Wait until the drain grace has passed.
// Linux is the platform fisk-mcp is built for; this keeps the package
// usable elsewhere.
func (g *Group) awaitLeader() {
	g.waitErr, g.reaped = g.cmd.Wait(), true
}
