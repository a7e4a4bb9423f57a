package introspect

import (
	"context"
	"os"
	"os/exec"
	"sync"
)

// runGroup starts cmd as the leader of a new process group and waits for
// it. ctx ending kills the whole group at once. So does the leader's exit:
// an application that exits normally but left a process behind (a helper
// it forked, a daemon it started) must not leave it running inside the
// server's lifetime, nor holding the output pipe open until waitDelay.
// startErr is cmd.Start's error; waitErr is cmd.Wait's.
//
// Why the order matters: a group is signalled by its leader's pid, and once
// the leader is reaped the pid may be given to an unrelated process that
// makes itself a group leader, which would then be killed. So on Linux the
// leader's exit is awaited without reaping it (awaitLeader), the group is
// killed while the zombie still holds the pid, and only then does cmd.Wait
// reap it; a cancel arriving after that point sends nothing. Where that
// wait is unavailable the leftover group is not killed after a normal exit
// (reaping first and signalling after would risk the wrong group), and a
// cancel racing the reap keeps the narrow window os/exec's own Cancel has.
func runGroup(ctx context.Context, cmd *exec.Cmd) (startErr, waitErr error) {
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return err, nil
	}
	g := &group{leader: cmd.Process}
	stopKilling := context.AfterFunc(ctx, g.kill)
	defer stopKilling()
	if awaitLeader(cmd.Process.Pid) {
		g.leaderExited()
	}
	waitErr = cmd.Wait()
	g.retire()
	return nil, waitErr
}

// group orders signals to a child's process group against reaping its
// leader (see runGroup).
type group struct {
	leader *os.Process
	mu     sync.Mutex
	closed bool // the leader may be reaped: the group id is no longer ours
}

// kill kills the group, unless the leader may already be reaped, and the
// leader itself through os.Process (which knows whether it was reaped), in
// case it moved to another group.
func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		killGroup(g.leader.Pid)
	}
	_ = g.leader.Kill()
}

// leaderExited kills what is left of the group of an exited, unreaped
// leader, and closes the group to any later signal.
func (g *group) leaderExited() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	killGroup(g.leader.Pid)
}

// retire closes the group to any later signal once the leader is reaped.
func (g *group) retire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
}
