//go:build !linux

package execrunner

import (
	"os"
	"time"
)

// capture is the parent's side of the output pipe (see capture.go). Without
// Linux's pidfds a goroutine reads it while the supervisor awaits the leader.
type capture struct {
	ring   *RingBuffer
	file   *os.File // read end
	reader *pipeReader
}

// newCapture makes the output pipe. os/exec puts the child's end back in
// blocking mode when it passes it on.
func newCapture(ring *RingBuffer) (capture, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return capture{}, nil, err
	}
	return capture{ring: ring, file: r}, w, nil
}

func (c *capture) started(pid int) {}

// release closes the read end if no reader took it.
func (c *capture) release() {
	if c.reader == nil && c.file != nil {
		_ = c.file.Close()
		c.file = nil
	}
}

// awaitExit captures output until the leader exits.
func (p *Process) awaitExit() {
	p.out.reader = readPipe(p.out.file, p.out.ring)
	p.awaitLeader()
}

// finishCapture reads the rest of the output until end-of-file or deadline,
// then closes the pipe.
func (p *Process) finishCapture(deadline time.Time) {
	p.out.reader.finish(deadline)
}

// pipeBuffered bounds what is read from a pipe once the deadline passed:
// without a portable FIONREAD, one read buffer, 64 KiB, the most a pipe
// holds on the BSDs and macOS.
func pipeBuffered(int) int { return readBufSize }
