//go:build unix

package introspect

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the child lead a new process group and makes a cancel kill
// the whole group, so a descendant of a hung binary cannot outlive it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
