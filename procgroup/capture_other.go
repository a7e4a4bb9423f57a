//go:build !linux

package procgroup

import (
	"io"
	"os"
	"time"
)

// capture is the parent's side of the output pipes (see capture.go).
// Without Linux's pidfds a goroutine per pipe reads it while Wait awaits
// the leader.
type capture struct {
	pipes [2]pipe
	n     int // pipes in use
}

// pipe is one read end and the sink it is read into.
type pipe struct {
	file   *os.File // read end
	sink   io.Writer
	reader *pipeReader
}

// newCapture makes a pipe per distinct sink. os/exec puts the child's end
// back in blocking mode when it passes it on.
func newCapture(stdout, stderr io.Writer) (capture, writeEnds, error) {
	plan := planSinks(stdout, stderr)
	c := capture{n: plan.n}
	var files [2]*os.File
	for i := range plan.n {
		r, w, err := os.Pipe()
		if err != nil {
			c.release()
			ends := writeEnds{files: files}
			ends.close()
			return capture{}, writeEnds{}, err
		}
		c.pipes[i] = pipe{file: r, sink: plan.sinks[i]}
		files[i] = w
	}
	return c, newWriteEnds(plan, files), nil
}

func (c *capture) started(int) {}

// release closes the read ends no reader took.
func (c *capture) release() {
	for i := range c.pipes {
		if p := &c.pipes[i]; p.reader == nil && p.file != nil {
			_ = p.file.Close()
			p.file = nil
		}
	}
}

// awaitExit captures output until the leader exits.
func (g *Group) awaitExit() {
	for i := range g.out.n {
		p := &g.out.pipes[i]
		p.reader = readPipe(p.file, p.sink)
	}
	g.awaitLeader()
}

// finishCapture reads the rest of the output until end-of-file or
// deadline, closes the pipes, and reports whether the deadline cut the
// reading short.
func (g *Group) finishCapture(deadline time.Time) (cut bool) {
	for i := range g.out.n {
		if eof := g.out.pipes[i].reader.finish(deadline); !eof {
			cut = true
		}
	}
	return cut
}

// pipeBuffered bounds what is read from a pipe once the deadline passed:
// without a portable FIONREAD, one read buffer, 64 KiB, the most a pipe
// holds on the BSDs and macOS.
func pipeBuffered(int) int { return readBufSize }
