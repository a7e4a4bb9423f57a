package procgroup

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The output pipes
//
// The child's stdout and stderr are write ends of pipes handed to os/exec as
// *os.File: os/exec then passes them to the child as they are, instead of
// making pipes of its own and a goroutine per pipe to copy them. The parent
// closes its copies of the write ends once the child has started, so a read
// end reports end-of-file when the last process holding it (the leader, or
// a descendant it left behind) is gone. Reading the read ends into the sinks
// is the Group's own job (see the package documentation for the two ways).
//
// Either way the reading ends at end-of-file or at the deadline set when the
// leader exits, whichever is first. The deadline plays the part of
// os/exec's WaitDelay, which needs os/exec's own pipes and goroutines. What
// a pipe holds when the deadline passes is still taken (drainBuffered): it
// was written in time, and only a reader the machine did not schedule soon
// enough had yet to read it.

// readBufSize is one read of an output pipe: a full Linux pipe (64 KiB by
// default) in one system call.
const readBufSize = 64 << 10

// readBufs recycles read buffers across runs; a buffer is held only while a
// run's output is being read.
var readBufs = sync.Pool{New: func() any { return new([readBufSize]byte) }}

// sinkPlan is which pipes a child gets: the distinct sinks, and the pipe
// each of stdout and stderr writes to (-1: the null device).
type sinkPlan struct {
	sinks          [2]io.Writer
	n              int
	stdout, stderr int
}

func planSinks(stdout, stderr io.Writer) sinkPlan {
	p := sinkPlan{stdout: -1, stderr: -1}
	if stdout != nil {
		p.sinks[p.n], p.stdout = stdout, p.n
		p.n++
	}
	switch {
	case stderr == nil:
	case p.stdout >= 0 && sameWriter(stdout, stderr):
		p.stderr = p.stdout
	default:
		p.sinks[p.n], p.stderr = stderr, p.n
		p.n++
	}
	return p
}

// sameWriter is == on two writers, false where their type cannot be
// compared (os/exec decides that stdout and stderr share a pipe the same
// way).
func sameWriter(a, b io.Writer) (same bool) {
	defer func() { _ = recover() }()
	return a == b
}

// writeEnds are the parent's copies of the pipes' write ends, as the child
// gets them.
type writeEnds struct {
	files          [2]*os.File
	stdout, stderr io.Writer // nil (the null device) or one of files
}

func newWriteEnds(plan sinkPlan, files [2]*os.File) writeEnds {
	w := writeEnds{files: files}
	if plan.stdout >= 0 {
		w.stdout = files[plan.stdout]
	}
	if plan.stderr >= 0 {
		w.stderr = files[plan.stderr]
	}
	return w
}

func (w *writeEnds) close() {
	for _, f := range w.files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// pipeReader reads an output pipe into its sink on a goroutine of its own,
// through the runtime's poller, so that a read deadline can end it.
type pipeReader struct {
	file *os.File
	sink io.Writer
	done chan struct{}
	err  error // why the reading stopped; written before done is closed
}

// readPipe starts reading f into sink until end-of-file, an error or the
// deadline that finish sets.
func readPipe(f *os.File, sink io.Writer) *pipeReader {
	r := &pipeReader{file: f, sink: sink, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		buf := readBufs.Get().(*[readBufSize]byte)
		defer readBufs.Put(buf)
		for {
			n, err := f.Read(buf[:])
			if n > 0 {
				_, _ = sink.Write(buf[:n])
			}
			if err != nil {
				r.err = err
				return
			}
		}
	}()
	return r
}

// finish lets the reader run until end-of-file or deadline, then closes the
// pipe, and reports whether the reading reached end-of-file. Pipes are
// pollable wherever the package builds (epoll, kqueue), so the deadline
// holds. What the pipe holds when the deadline ends the reading is taken
// too; output arriving after it is not.
func (r *pipeReader) finish(deadline time.Time) (eof bool) {
	_ = r.file.SetReadDeadline(deadline)
	<-r.done
	eof = true
	if errors.Is(r.err, os.ErrDeadlineExceeded) {
		eof = r.drain()
	}
	_ = r.file.Close()
	return eof
}

// drain takes what the pipe holds after the deadline ended the reading,
// without waiting for more. The descriptor is non-blocking (it is under the
// runtime's poller), and a RawConn read whose function reports done never
// parks; the deadline is cleared first, as an expired one fails it at once.
func (r *pipeReader) drain() (eof bool) {
	rc, err := r.file.SyscallConn()
	if err != nil {
		return false
	}
	_ = r.file.SetReadDeadline(time.Time{})
	buf := readBufs.Get().(*[readBufSize]byte)
	defer readBufs.Put(buf)
	_ = rc.Read(func(fd uintptr) bool {
		eof = drainBuffered(int(fd), buf[:], r.sink)
		return true
	})
	return eof
}

// drainBuffered reads into sink what the pipe at fd holds now: at most
// pipeBuffered(fd) bytes, so a writer that goes on writing cannot keep it
// reading. Reads of no more than the pipe holds return at once on a
// blocking descriptor too. It reports whether it reached end-of-file.
func drainBuffered(fd int, buf []byte, sink io.Writer) (eof bool) {
	for left := pipeBuffered(fd); left > 0; {
		n, err := unix.Read(fd, buf[:min(left, len(buf))])
		if err == unix.EINTR {
			continue
		}
		if n <= 0 {
			// 0 is end-of-file; EAGAIN means the pipe is empty after all;
			// after another error nothing more can be read.
			return n == 0 && err == nil
		}
		_, _ = sink.Write(buf[:n])
		left -= n
	}
	return emptyAtEOF(fd, buf, sink)
}

// emptyAtEOF reports whether the pipe at fd, just drained, is at
// end-of-file: a read would not block, and returns nothing. Whatever the
// read returns instead is the command's output, written in time.
func emptyAtEOF(fd int, buf []byte, sink io.Writer) bool {
	fds := [1]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds[:], 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 || fds[0].Revents&(unix.POLLIN|unix.POLLHUP) == 0 {
			return false
		}
		break
	}
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if n > 0 {
			_, _ = sink.Write(buf[:n])
			return false
		}
		return n == 0 && err == nil
	}
}
