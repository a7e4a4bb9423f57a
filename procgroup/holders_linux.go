package procgroup

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// killPipeHolders sends SIGKILL to every process that still holds one of
// the output pipes named by inos once the drain grace has passed. Only the
// command's own processes can: the write ends are close-on-exec from the
// start and the server closes its copies once the leader has started. So a
// holder is a process the command left behind outside its group (setsid,
// setpgid), which the group kill missed and which would otherwise outlive
// the run. Two kinds of process are spared: this one, and its children,
// since a child the server forks for another run holds copies of every
// descriptor between its fork and its exec. A process that escaped and
// closed its output is beyond reach (see the package documentation).
//
// It reads /proc, and only after a cut, which is rare: a command that
// leaves nothing behind never pays for the scan.
func killPipeHolders(inos []uint64) {
	if len(inos) == 0 {
		return
	}
	want := make(map[string]bool, len(inos))
	for _, ino := range inos {
		want["pipe:["+strconv.FormatUint(ino, 10)+"]"] = true
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if holdsAny(pid, want) && parentOf(pid) != self {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
}

// holdsAny reports whether process pid has a descriptor open on a file
// whose /proc link is in want.
func holdsAny(pid int, want map[string]bool) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if link, err := os.Readlink(dir + fd.Name()); err == nil && want[link] {
			return true
		}
	}
	return false
}

// parentOf returns the parent pid of pid from /proc/PID/stat, or -1.
func parentOf(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// The fields after the parenthesised name (which may hold anything)
	// are the state, then the parent's pid.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return -1
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return -1
	}
	return ppid
}
