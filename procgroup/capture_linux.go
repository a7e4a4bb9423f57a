package procgroup

import (
	"io"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// capture is the parent's side of the output pipes (see capture.go). On
// Linux the goroutine running Wait reads them in place while a pidfd tells
// it when the leader exits; the portable path takes over if pidfds are
// unavailable or ppoll fails.
type capture struct {
	pipes [2]pipe
	n     int // pipes in use
	pidfd int // the leader's pidfd; -1 when there is none
	buf   *[readBufSize]byte
}

// pipe is one read end and the sink it is read into.
type pipe struct {
	fd     int    // read end, read in place; -1 once closed or handed to reader
	ino    uint64 // the pipe's inode, which names it in /proc/PID/fd
	sink   io.Writer
	eof    bool        // every write end is closed
	reader *pipeReader // the portable path, once taken
}

// newCapture makes a pipe per distinct sink. Both ends are close-on-exec
// from the start, so no other child inherits them; the child's fd 1 and fd
// 2 are copies made in the child, which clears the flag on them. Both ends
// stay blocking: the child must not see EAGAIN, and the parent reads only
// what ppoll reported, which a blocking read returns at once.
func newCapture(stdout, stderr io.Writer) (capture, writeEnds, error) {
	plan := planSinks(stdout, stderr)
	c := capture{n: plan.n, pidfd: -1}
	for i := range c.pipes {
		c.pipes[i].fd = -1
	}
	var files [2]*os.File
	for i := range plan.n {
		var fds [2]int
		if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
			c.release()
			w := writeEnds{files: files}
			w.close()
			return capture{}, writeEnds{}, os.NewSyscallError("pipe2", err)
		}
		c.pipes[i] = pipe{fd: fds[0], sink: plan.sinks[i]}
		var st unix.Stat_t
		if unix.Fstat(fds[0], &st) == nil {
			c.pipes[i].ino = st.Ino
		}
		files[i] = os.NewFile(uintptr(fds[1]), "|1")
	}
	return c, newWriteEnds(plan, files), nil
}

// started opens a pidfd for the leader. Nothing can have reaped the leader
// yet (only Wait does), so pid still names it, even if it already exited.
func (c *capture) started(pid int) {
	c.pidfd = openPidfd(pid)
}

// release closes what is still open and gives the read buffer back.
func (c *capture) release() {
	for i := range c.pipes {
		if p := &c.pipes[i]; p.fd >= 0 {
			_ = unix.Close(p.fd)
			p.fd = -1
		}
	}
	if c.pidfd >= 0 {
		_ = unix.Close(c.pidfd)
		c.pidfd = -1
	}
	c.putBuf()
}

func (c *capture) getBuf() []byte {
	if c.buf == nil {
		c.buf = readBufs.Get().(*[readBufSize]byte)
	}
	return c.buf[:]
}

func (c *capture) putBuf() {
	if c.buf != nil {
		readBufs.Put(c.buf)
		c.buf = nil
	}
}

// awaitExit captures output until the leader exits, leaving it unreaped.
func (g *Group) awaitExit() {
	c := &g.out
	if c.pidfd >= 0 {
		exited := c.pollUntilExit()
		_ = unix.Close(c.pidfd)
		c.pidfd = -1
		if exited {
			return
		}
	}
	c.readInBackground()
	g.awaitLeader()
}

// finishCapture reads the rest of the output until end-of-file or
// deadline, closes the pipes, and reports whether the deadline cut the
// reading short.
func (g *Group) finishCapture(deadline time.Time) (cut bool) {
	c := &g.out
	if !c.pollUntilEOF(deadline) {
		c.readInBackground()
	}
	var held []uint64
	for i := range c.n {
		p := &c.pipes[i]
		if p.reader != nil {
			p.eof = p.reader.finish(deadline)
		}
		if !p.eof && p.ino != 0 {
			held = append(held, p.ino)
		}
		cut = cut || !p.eof
	}
	// A pipe's inode names it for as long as any end is open, and a
	// holder keeps the write end open.
	killPipeHolders(held)
	c.release()
	return cut
}

// pollUntilExit reads the pipes until the leader exits, waiting for output
// and for the exit in one ppoll. It reports false if ppoll failed; the
// caller then continues on the portable path, having lost nothing.
func (c *capture) pollUntilExit() bool {
	var fds [len(c.pipes) + 1]unix.PollFd
	exit := c.n
	fds[exit] = unix.PollFd{Fd: int32(c.pidfd), Events: unix.POLLIN}
	for {
		for i := range c.n {
			fds[i] = unix.PollFd{Fd: -1} // ppoll skips negative descriptors
			if p := &c.pipes[i]; !p.eof {
				fds[i] = unix.PollFd{Fd: int32(p.fd), Events: unix.POLLIN}
			}
		}
		if !ppoll(fds[:exit+1], nil) {
			return false
		}
		for i := range c.n {
			if fds[i].Revents != 0 {
				c.readOnce(&c.pipes[i])
			}
		}
		if fds[exit].Revents != 0 {
			return true
		}
	}
}

// pollUntilEOF reads the pipes left on this goroutine until end-of-file or
// deadline. It reports false if ppoll failed.
func (c *capture) pollUntilEOF(deadline time.Time) bool {
	var fds [len(c.pipes)]unix.PollFd
	var which [len(c.pipes)]int
	for {
		open := 0
		for i := range c.n {
			if p := &c.pipes[i]; !p.eof && p.fd >= 0 {
				fds[open], which[open] = unix.PollFd{Fd: int32(p.fd), Events: unix.POLLIN}, i
				open++
			}
		}
		if open == 0 {
			return true
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			// Output written before the deadline that this goroutine had
			// no chance to read yet is still the command's output.
			for _, i := range which[:open] {
				p := &c.pipes[i]
				p.eof = drainBuffered(p.fd, c.getBuf(), p.sink)
			}
			return true
		}
		ts := unix.NsecToTimespec(int64(wait))
		if !ppoll(fds[:open], &ts) {
			return false
		}
		for j, i := range which[:open] {
			if fds[j].Revents != 0 {
				c.readOnce(&c.pipes[i])
			}
		}
	}
}

// ppoll waits until one of fds is ready or timeout passes (nil: without
// bound), retrying on EINTR. It reports false if the call failed or a
// descriptor was invalid. It blocks this goroutine's thread, as
// os.Process.Wait's waitid does, rather than parking in the runtime's
// poller, which can wait for a pipe but not for a process.
func ppoll(fds []unix.PollFd, timeout *unix.Timespec) bool {
	for {
		_, err := unix.Ppoll(fds, timeout, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false
		}
		for _, fd := range fds {
			if fd.Revents&unix.POLLNVAL != 0 {
				return false
			}
		}
		return true
	}
}

// readOnce reads what ppoll reported ready: data, or end-of-file.
func (c *capture) readOnce(p *pipe) {
	buf := c.getBuf()
	for {
		n, err := unix.Read(p.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if n > 0 {
			_, _ = p.sink.Write(buf[:n])
			return
		}
		// 0 is end-of-file; after an error nothing more can be read.
		p.eof = true
		return
	}
}

// readInBackground hands the rest of the reading to a pipeReader per pipe,
// for the portable path. The read ends become non-blocking, which puts them
// under the runtime's poller, where a read deadline can bound them.
func (c *capture) readInBackground() {
	for i := range c.n {
		p := &c.pipes[i]
		if p.reader != nil || p.eof || p.fd < 0 {
			continue
		}
		_ = unix.SetNonblock(p.fd, true)
		p.reader = readPipe(os.NewFile(uintptr(p.fd), "|0"), p.sink)
		p.fd = -1
	}
	c.putBuf()
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
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if err == unix.ENOSYS || err == unix.EPERM {
			pidfdUnavailable.Store(true)
		}
		return -1
	}
	return fd
}

// pipeBuffered reports how many bytes the pipe at fd holds (FIONREAD), or
// 0 if it cannot tell. The kernel writes a C int: read as a uint32, it is
// right on every byte order, where IoctlGetInt's Go int is not.
func pipeBuffered(fd int) int {
	n, err := unix.IoctlGetUint32(fd, unix.TIOCINQ)
	if err != nil {
		return 0
	}
	return int(n)
}

// SetPidfdUnavailable makes later runs take the portable path, as on a
// kernel without pidfd_open, and returns the previous setting. It exists
// for the tests of the packages built on this one.
func SetPidfdUnavailable(v bool) (was bool) { return pidfdUnavailable.Swap(v) }
