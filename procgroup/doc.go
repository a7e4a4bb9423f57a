// Package procgroup supervises one child process as the leader of its own
// process group: it starts the child with pipes onto the caller's output
// sinks, reads them while the leader runs, kills the group on request
// (SIGTERM, then SIGKILL after a grace) and whenever the leader exits, reaps
// the leader and drains the pipes within a bound. Both ways fisk-mcp runs a
// binary use it: execrunner for a tool call, introspect for
// BINARY --fisk-introspect.
//
// It is a package of its own, rather than an exported lower layer
// of execrunner, because neither caller should depend on the other's policy:
// execrunner's head/tail ring, redaction and credential list mean nothing to
// introspection, and introspect sits before execrunner in the flow of the
// tree. Each caller keeps its own limits and hands its sinks in.
//
// # What a Group guarantees
//
//   - The child leads a new process group; Stop signals the whole group,
//     and a SIGKILL also reaches the leader itself, should it have left the
//     group.
//   - When the leader exits, whatever is left in its group is killed at
//     once. On Linux the exit is awaited without reaping the leader
//     (waitid with WNOWAIT), so the group is killed while the zombie still
//     holds its pid and no unrelated process can receive the signal. No
//     signal is sent once the leader may have been reaped.
//   - stdout and stderr follow os/exec's rules: a nil sink is the null
//     device, and the same sink for both is one pipe, so the sink sees the
//     writes in the order the child made them. Each sink is written by one
//     goroutine at a time, and only until Wait returns.
//   - The pipes are read until end-of-file or until the drain grace after
//     the leader's exit, whichever is first, then what they hold is taken:
//     a process that escaped the group and holds a pipe open cannot hold
//     Wait, and output written before the deadline is not lost to a
//     supervisor the machine was slow to schedule. Exit.OutputCut says
//     whether the deadline ended the reading. On Linux every process still
//     holding a pipe then (found in /proc) is killed: it can only be one
//     the command left behind outside its group.
//
// On Linux the goroutine that calls Wait reads the pipes in place, waiting
// for output and for the leader's exit in one ppoll(2) on the pipes and a
// pidfd; a copying goroutine per pipe, and the thread hand-offs between it,
// the waiter and the caller, were most of what a run cost beyond a bare
// os/exec run. Elsewhere, or where pidfds are unavailable, a goroutine per
// pipe reads it through the runtime's poller while Wait awaits the leader.
//
// # What it deliberately does not do
//
// It does not find the binary, build the environment, bound the output,
// time the run or classify failures: the caller prepares the exec.Cmd,
// chooses the sinks, calls Stop for its own reasons (a timeout, a cancel, an
// overflowing sink) and words the errors. A process that leaves the group
// on purpose (setsid, setpgid) escapes the group kill: no portable
// unprivileged mechanism can follow it, and only one that keeps a pipe
// open past the drain grace is found and killed, on Linux. Outside Linux the leader is reaped
// before the group is killed, so a pid reused at that instant could be
// signalled; Linux is the platform fisk-mcp is built for.
package procgroup
