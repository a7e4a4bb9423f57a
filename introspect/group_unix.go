//go:build unix

package introspect

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the child lead a new process group, so that everything it
// starts can be killed with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to every process of the group led by pid. An error
// means the group is already empty. The caller guarantees that pid, hence
// the group id, has not been released (see group).
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
