package introspect

import (
	"syscall"
	"unsafe"
)

// awaitLeader blocks until the process pid exits and leaves it unreaped,
// reporting true; then it is a zombie that keeps its pid, so its group id
// cannot be reused while the group is killed. This is the wait os.Process
// itself performs before reaping (waitid with WNOWAIT). It reports false
// without waiting when waitid is unavailable (some emulated kernels).
func awaitLeader(pid int) bool {
	const pPID = 1     // idtype_t P_PID
	var info [128]byte // siginfo_t; only the call's success matters
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch errno {
		case 0:
			return true
		case syscall.EINTR:
			continue
		}
		return false
	}
}
