package procgroup

import "golang.org/x/sys/unix"

// awaitLeader blocks until the leader exits and leaves it unreaped: a
// zombie keeps its pid, so the group id stays reserved while the group is
// killed and no unrelated process can receive the signal. This is the wait
// os.Process itself performs before reaping (waitid with WNOWAIT).
func (g *Group) awaitLeader() {
	var info unix.Siginfo // only the call's success matters
	for {
		err := unix.Waitid(unix.P_PID, g.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		switch err {
		case nil:
			return
		case unix.EINTR:
			continue
		}
		// waitid is unavailable (some emulated kernels): reap instead. The
		// group is then killed after the leader's pid was released, which
		// is what os/exec alone would give.
		g.waitErr, g.reaped = g.cmd.Wait(), true
		return
	}
}
