package execrunner

import (
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// capture is the parent's side of the output pipe (see capture.go). On Linux
// the supervising goroutine reads it in place while a pidfd tells it when
// the leader exits; the portable path takes over if pidfds are unavailable.
type capture struct {
	ring   *RingBuffer
	fd     int  // read end, read in place; -1 once closed or handed to reader
	eof    bool // every write end is closed
	pidfd  int  // the leader's pidfd; -1 when there is none
	buf    *[readBufSize]byte
	reader *pipeReader // the portable path, once taken
}

// newCapture makes the output pipe. Both ends are close-on-exec from the
// start, so no other child inherits them; the child's fd 1 and fd 2 are
// copies made in the child, which clears the flag on them. Both ends stay
// blocking: the child must not see EAGAIN, and the parent reads only what
// ppoll reported, which a blocking read returns at once.
func newCapture(ring *RingBuffer) (capture, *os.File, error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return capture{}, nil, os.NewSyscallError("pipe2", err)
	}
	return capture{ring: ring, fd: fds[0], pidfd: -1}, os.NewFile(uintptr(fds[1]), "|1"), nil
}

// started opens a pidfd for the leader. Nothing can have reaped the leader
// yet (only Wait does), so pid still names it, even if it already exited.
func (c *capture) started(pid int) {
	c.pidfd = openPidfd(pid)
}

// release closes the read end and gives the read buffer back.
func (c *capture) release() {
	if c.fd >= 0 {
		_ = syscall.Close(c.fd)
		c.fd = -1
	}
	if c.pidfd >= 0 {
		_ = syscall.Close(c.pidfd)
		c.pidfd = -1
	}
	if c.buf != nil {
		readBufs.Put(c.buf)
		c.buf = nil
	}
}

// awaitExit captures output until the leader exits, leaving it unreaped.
func (p *Process) awaitExit() {
	c := &p.out
	if c.pidfd >= 0 {
		exited := c.pollUntilExit()
		_ = syscall.Close(c.pidfd)
		c.pidfd = -1
		if exited {
			return
		}
	}
	c.readInBackground()
	p.awaitLeader()
}

// finishCapture reads the rest of the output until end-of-file or deadline,
// then closes the pipe.
func (p *Process) finishCapture(deadline time.Time) {
	c := &p.out
	if c.reader == nil && !c.pollUntilEOF(deadline) {
		c.readInBackground()
	}
	if c.reader != nil {
		c.reader.finish(deadline)
	}
	c.release()
}

// pollUntilExit reads the pipe until the leader exits, waiting for output
// and for the exit in one ppoll. It reports false if ppoll failed; the
// caller then continues on the portable path, having lost nothing.
func (c *capture) pollUntilExit() bool {
	fds := [2]pollFd{{fd: int32(c.fd), events: pollIn}, {fd: int32(c.pidfd), events: pollIn}}
	for {
		if c.eof {
			fds[0].fd = -1 // ppoll skips negative descriptors
		}
		switch ppoll(fds[:], -1) {
		case 0:
		case syscall.EINTR:
			continue
		default:
			return false
		}
		if (fds[0].revents|fds[1].revents)&pollNval != 0 {
			return false
		}
		if fds[0].revents != 0 {
			c.readOnce()
		}
		if fds[1].revents != 0 {
			return true
		}
	}
}

// pollUntilEOF reads the pipe until end-of-file or deadline. It reports
// false if ppoll failed.
func (c *capture) pollUntilEOF(deadline time.Time) bool {
	fds := [1]pollFd{{fd: int32(c.fd), events: pollIn}}
	for !c.eof {
		wait := time.Until(deadline)
		if wait <= 0 {
			// Output written before the deadline that this goroutine had
			// no chance to read yet is still the command's output.
			if c.buf == nil {
				c.buf = readBufs.Get().(*[readBufSize]byte)
			}
			c.eof = drainBuffered(c.fd, c.buf[:], c.ring)
			return true
		}
		switch ppoll(fds[:], wait) {
		case 0:
		case syscall.EINTR:
			continue
		default:
			return false
		}
		if fds[0].revents&pollNval != 0 {
			return false
		}
		if fds[0].revents != 0 {
			c.readOnce()
		}
	}
	return true
}

// readOnce reads what ppoll reported ready: data, or end-of-file.
func (c *capture) readOnce() {
	if c.buf == nil {
		c.buf = readBufs.Get().(*[readBufSize]byte)
	}
	for {
		n, err := syscall.Read(c.fd, c.buf[:])
		if err == syscall.EINTR {
			continue
		}
		if n > 0 {
			_, _ = c.ring.Write(c.buf[:n])
			return
		}
		// 0 is end-of-file; after an error nothing more can be read.
		c.eof = true
		return
	}
}

// readInBackground hands the rest of the reading to a pipeReader, for the
// portable path. The read end becomes non-blocking, which puts it under the
// runtime's poller, where a read deadline can bound it.
func (c *capture) readInBackground() {
	if c.reader != nil || c.eof || c.fd < 0 {
		return
	}
	_ = syscall.SetNonblock(c.fd, true)
	c.reader = readPipe(os.NewFile(uintptr(c.fd), "|0"), c.ring)
	c.fd = -1
	if c.buf != nil {
		readBufs.Put(c.buf)
		c.buf = nil
	}
}

// pidfdUnavailable is set once pidfd_open(2) proved missing or forbidden
// (kernels before 5.3, seccomp profiles), so later runs do not retry it.
var pidfdUnavailable atomic.Bool

// openPidfd returns a pidfd for pid (close-on-exec, as pidfd_open always
// makes it), or -1.
func openPidfd(pid int) int {
	if pidfdUnavailable.Load() {
		return -1
	}
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno != 0 {
		if errno == syscall.ENOSYS || errno == syscall.EPERM {
			pidfdUnavailable.Store(true)
		}
		return -1
	}
	return int(fd)
}

// sysPidfdOpen is pidfd_open's number: 434 on every architecture but the
// MIPS ones, which offset their tables.
var sysPidfdOpen = func() uintptr {
	switch runtime.GOARCH {
	case "mips", "mipsle":
		return 4434
	case "mips64", "mips64le":
		return 5434
	}
	return 434
}()

// pipeBuffered reports how many bytes the pipe at fd holds (FIONREAD), or
// 0 if it cannot tell.
func pipeBuffered(fd int) int {
	var n int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
		return 0
	}
	return int(n)
}

// pollFd is struct pollfd.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const (
	pollIn   = 0x1
	pollNval = 0x20
)

// ppoll waits until one of fds is ready or timeout passes; a negative
// timeout waits without bound. It blocks this goroutine's thread, as
// os.Process.Wait's waitid does, rather than parking in the runtime's
// poller, which can wait for a pipe but not for a process.
func ppoll(fds []pollFd, timeout time.Duration) syscall.Errno {
	var ts *syscall.Timespec
	if timeout >= 0 {
		t := syscall.NsecToTimespec(int64(timeout))
		ts = &t
	}
	_, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)),
		uintptr(unsafe.Pointer(ts)), 0, 0, 0)
	return errno
}
