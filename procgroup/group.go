package procgroup

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Options says where a Group's output goes and how long it is waited for.
// The zero value discards the output, kills at once on Stop and reads the
// pipes only as far as they are filled when the leader exits.
type Options struct {
	// Stdout and Stderr receive the child's output, with os/exec's rules:
	// nil is the null device; the same writer (compared with ==) for both
	// is one pipe, so its writes keep the order the child made them in.
	// An error from a sink does not stop the reading: the pipe is read to
	// its end all the same, so the child never blocks on a full pipe.
	Stdout, Stderr io.Writer
	// KillGrace is the time Stop gives the group between SIGTERM and
	// SIGKILL; 0 makes Stop send SIGKILL at once.
	KillGrace time.Duration
	// DrainGrace bounds the reading of the pipes after the leader's exit,
	// for a process that left the group and still holds one open.
	DrainGrace time.Duration
}

// Group is a child and its process group. The zero value is ready for
// Start; a caller that runs many children embeds one in its own record of
// a run, so that supervising costs no allocation of its own. A Group must
// not be copied once started. Once Start succeeded, Stop may be called from
// any goroutine at any time, and Wait must be called exactly once.
type Group struct {
	cmd        *exec.Cmd
	out        capture
	started    time.Time
	killGrace  time.Duration
	drainGrace time.Duration

	// mu orders signals against reaping: no signal goes to the group once
	// leaderGone is set, because the leader may then be reaped and its
	// group id reused.
	mu         sync.Mutex
	leaderGone bool
	reaped     bool        // awaitLeader had to reap the leader with cmd.Wait
	stopErr    error       // the first Stop's reason
	escalate   *time.Timer // SIGKILL after the grace, once stopped
	waitErr    error       // cmd.Wait's error
}

// Exit is what Wait reports.
type Exit struct {
	// Err is [exec.Cmd.Wait]'s error: nil after exit status 0, an
	// [*exec.ExitError] after another status or a death by signal.
	Err error
	// State is the leader's [os.ProcessState], nil if waiting failed.
	State *os.ProcessState
	// Duration is the time from the start to the leader's exit.
	Duration time.Duration
	// Stopped is the reason given to the first Stop that reached the
	// group before its leader exited; nil if none did.
	Stopped error
	// OutputCut reports that the drain grace ended the reading of a pipe
	// some process still held open: the output may be incomplete.
	OutputCut bool
}

// Start starts cmd as the leader of a new process group, with its stdout
// and stderr on pipes to opts' sinks. The caller prepares everything else
// of cmd (path, arguments, environment, directory, stdin) and must leave
// cmd.Stdout, cmd.Stderr and cmd.Wait to the Group. A returned error is
// cmd.Start's, or the failure to make a pipe; nothing then runs. A Group
// is started once.
func (g *Group) Start(cmd *exec.Cmd, opts Options) error {
	out, ends, err := newCapture(opts.Stdout, opts.Stderr)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = ends.stdout, ends.stderr
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	started := time.Now()
	err = cmd.Start()
	// The child has its own copies of the write ends now; the parent's
	// must go, or the pipes would never report end-of-file.
	ends.close()
	if err != nil {
		out.release()
		return err
	}
	out.started(cmd.Process.Pid)
	g.cmd, g.out, g.started = cmd, out, started
	g.killGrace, g.drainGrace = opts.KillGrace, opts.DrainGrace
	return nil
}

// Started is when the child was started.
func (g *Group) Started() time.Time { return g.started }

// Pid is the leader's process id, which is also the group's id.
func (g *Group) Pid() int { return g.cmd.Process.Pid }

// Wait reads the output until the leader exits, kills what is left of its
// group, reaps the leader and finishes reading the pipes (see
// [Options.DrainGrace]). It runs the supervision on the calling goroutine
// and returns when all of that is done.
func (g *Group) Wait() Exit {
	g.awaitExit()
	exitedAt := time.Now()
	g.mu.Lock()
	g.leaderGone = true
	if g.escalate != nil {
		g.escalate.Stop()
	}
	stopErr := g.stopErr
	g.mu.Unlock()

	// Whatever is left of the group was abandoned by a leader that has
	// exited: kill it now, not after a grace, so nothing it started
	// outlives the run. The leader is an unreaped zombie (unless
	// awaitLeader had to reap it), so the group id is still its own.
	g.signalGroup(unix.SIGKILL)
	if !g.reaped {
		g.waitErr = g.cmd.Wait()
	}
	cut := g.finishCapture(exitedAt.Add(g.drainGrace))
	return Exit{
		Err:       g.waitErr,
		State:     g.cmd.ProcessState,
		Duration:  exitedAt.Sub(g.started),
		Stopped:   stopErr,
		OutputCut: cut,
	}
}

// Stop asks the group to end: SIGTERM (with SIGCONT, as a stopped process
// cannot act on it) and SIGKILL after the kill grace, or SIGKILL at once
// when the grace is 0. Only the first reason counts, and once the leader
// has exited there is nothing to stop: Stop then does nothing. It reports
// whether this call stopped the group.
func (g *Group) Stop(reason error) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.leaderGone || g.stopErr != nil {
		return false
	}
	g.stopErr = reason
	if g.killGrace <= 0 {
		g.kill()
		return true
	}
	g.signalGroup(unix.SIGTERM)
	g.signalGroup(unix.SIGCONT)
	g.escalate = time.AfterFunc(g.killGrace, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if !g.leaderGone {
			g.kill()
		}
	})
	return true
}

// kill sends SIGKILL to the group and to the leader through os.Process,
// which knows whether it was reaped, in case the leader left the group.
// The caller holds mu and has checked that the leader is not gone.
func (g *Group) kill() {
	g.signalGroup(unix.SIGKILL)
	_ = g.cmd.Process.Kill()
}

// signalGroup sends sig to every process of the group. An error means the
// group is already empty.
func (g *Group) signalGroup(sig unix.Signal) {
	_ = unix.Kill(-g.cmd.Process.Pid, sig)
}
