package execrunner

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
)

// The output pipe
//
// The child's stdout and stderr are the write end of one pipe, handed to
// os/exec as an *os.File: os/exec then passes it to the child as is, for fd 1
// and fd 2, instead of making a pipe of its own and a goroutine to copy it.
// The parent closes its copy of the write end once the child has started, so
// the read end reports end-of-file when the last process holding it (the
// leader, or a descendant it left behind) is gone. Reading the read end into
// the RingBuffer is the runner's own job:
//
//   - on Linux, the goroutine that supervises the run reads it in place,
//     waiting for output and for the leader's exit in one ppoll(2) on the
//     pipe and a pidfd (capture_linux.go). A copying goroutine, and the
//     thread hand-offs between it, the waiter and the caller, were most of
//     what a run cost beyond a bare os/exec run;
//   - elsewhere, or when pidfds are unavailable, a goroutine reads it through
//     the runtime's poller while the supervisor waits for the leader (below).
//
// Either way the reading ends at end-of-file or at the deadline set when the
// leader exits (the kill grace later), whichever is first: a process that
// escaped the group kill and still holds the pipe cannot hold the call open.
// The deadline plays the part of os/exec's WaitDelay, which needs os/exec's
// own pipe and goroutine. What the pipe holds when the deadline passes is
// still taken (drainBuffered): it was written in time, and only a reader
// that the machine did not schedule soon enough had yet to read it.

// readBufSize is one read of the output pipe: a full Linux pipe (64 KiB by
// default) in one system call.
const readBufSize = 64 << 10

// readBufs recycles read buffers across runs; a buffer is held only while a
// run's output is being read, never by a Result.
var readBufs = sync.Pool{New: func() any { return new([readBufSize]byte) }}

// pipeReader reads the output pipe into the ring on a goroutine of its own,
// through the runtime's poller, so that a read deadline can end it.
type pipeReader struct {
	file *os.File
	ring *RingBuffer
	done chan struct{}
	err  error // why the reading stopped; written before done is closed
}

// readPipe starts reading f into ring until end-of-file, an error or the
// deadline that finish sets.
func readPipe(f *os.File, ring *RingBuffer) *pipeReader {
	r := &pipeReader{file: f, ring: ring, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		buf := readBufs.Get().(*[readBufSize]byte)
		defer readBufs.Put(buf)
		for {
			n, err := f.Read(buf[:])
			_, _ = ring.Write(buf[:n])
			if err != nil {
				r.err = err
				return
			}
		}
	}()
	return r
}

// finish lets the reader run until end-of-file or deadline, then closes the
// pipe. Pipes are pollable wherever the package builds (epoll, kqueue), so
// the deadline holds. What the pipe holds when the deadline ends the
// reading is taken too; output arriving after it is not captured.
func (r *pipeReader) finish(deadline time.Time) {
	_ = r.file.SetReadDeadline(deadline)
	<-r.done
	if errors.Is(r.err, os.ErrDeadlineExceeded) {
		r.drain()
	}
	_ = r.file.Close()
}

// drain takes what the pipe holds after the deadline ended the reading,
// without waiting for more. The descriptor is non-blocking (it is under the
// runtime's poller), and a RawConn read whose function reports done never
// parks; the deadline is cleared first, as an expired one fails it at once.
func (r *pipeReader) drain() {
	rc, err := r.file.SyscallConn()
	if err != nil {
		return
	}
	_ = r.file.SetReadDeadline(time.Time{})
	buf := readBufs.Get().(*[readBufSize]byte)
	defer readBufs.Put(buf)
	_ = rc.Read(func(fd uintptr) bool {
		drainBuffered(int(fd), buf[:], r.ring)
		return true
	})
}

// drainBuffered reads into ring what the pipe at fd holds now: at most
// pipeBuffered(fd) bytes, so a writer that goes on writing cannot keep it
// reading. Reads of no more than the pipe holds return at once on a
// blocking descriptor too. It reports whether it reached end-of-file.
func drainBuffered(fd int, buf []byte, ring *RingBuffer) (eof bool) {
	for left := pipeBuffered(fd); left > 0; {
		n, err := syscall.Read(fd, buf[:min(left, len(buf))])
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 {
			// 0 is end-of-file; EAGAIN means the pipe is empty after all;
			// after another error nothing more can be read.
			return n == 0 && err == nil
		}
		_, _ = ring.Write(buf[:n])
		left -= n
	}
	return false
}
