package execrunner

import (
	"syscall"
	"unsafe"
)

// awaitLeader blocks until the group leader exits and leaves it unreaped: a
// zombie keeps its pid, so the group id stays reserved while the group is
// killed and no unrelated process can receive the signal. This is the wait
// os.Process itself performs before reaping (waitid with WNOWAIT).
func (p *Process) awaitLeader() {
	const pPID = 1     // idtype_t P_PID
	var info [128]byte // siginfo_t; only the call's success matters
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(p.cmd.Process.Pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch errno {
		case 0:
			return
		case syscall.EINTR:
			continue
		}
		// waitid is unavailable (some emulated kernels): reap instead. The
		// group is then killed after the leader's pid was released, which
		// is what os/exec alone would give.
		p.waitErr, p.reaped = p.cmd.Wait(), true
		return
	}
}
