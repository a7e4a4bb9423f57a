package server

import (
	"context"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client over newline-delimited JSON-RPC on in and
// out (normally os.Stdin and os.Stdout). It returns when the client
// disconnects (its in-flight calls are cancelled, killing their process
// groups, and waited for) or when ctx ends: then no new calls are accepted,
// running ones get Config.DrainTimeout to finish, and the rest are
// cancelled before the session closes.
//
// out must carry nothing but the protocol: the server never writes to it
// otherwise, and logs go to Config.Logger.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ss, err := s.mcp.Connect(ctx, &mcp.IOTransport{Reader: readCloser(in), Writer: writeCloser(out)}, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()

	select {
	case err := <-ended:
		// The client went away: the SDK has cancelled its calls; wait for
		// them so no process outlives ServeStdio.
		s.awaitCancelled()
		return err
	case <-ctx.Done():
		s.drain(s.cfg.DrainTimeout)
		ss.Close()
		<-ended
		return nil
	}
}

// drain refuses new calls, lets running ones finish for up to timeout, then
// cancels the rest and waits for them.
func (s *Server) drain(timeout time.Duration) {
	running := s.calls.inFlight()
	if running > 0 {
		s.log.Info("draining in-flight calls", "calls", running, "timeout", timeout)
	}
	cancelled, done := s.calls.drain(timeout, s.cfg.KillGrace+drainSlack)
	if cancelled > 0 {
		s.log.Warn("cancelled calls still running after the drain timeout", "calls", cancelled)
	}
	if !done {
		s.log.Error("calls did not return after being cancelled", "calls", s.calls.inFlight())
	}
}

// awaitCancelled refuses new calls and waits for the running ones, which
// their transport has already cancelled, to return.
func (s *Server) awaitCancelled() {
	if _, done := s.calls.drain(0, s.cfg.KillGrace+drainSlack); !done {
		s.log.Error("calls did not return after being cancelled", "calls", s.calls.inFlight())
	}
}

// drainSlack is the time a cancelled call has, beyond the kill grace, to
// return after its process group was killed.
const drainSlack = 5 * time.Second

// readCloser adapts in for the SDK transport without letting it close a
// reader it does not own, unless in is itself a ReadCloser.
func readCloser(in io.Reader) io.ReadCloser {
	if rc, ok := in.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(in)
}

func writeCloser(out io.Writer) io.WriteCloser {
	if wc, ok := out.(io.WriteCloser); ok {
		return wc
	}
	return nopWriteCloser{out}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
