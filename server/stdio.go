package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client over newline-delimited JSON-RPC on in and
// out (normally os.Stdin and os.Stdout). A line that is not a JSON-RPC
// message is answered with a JSON-RPC error (id null) and skipped; it does
// not end the session (see [lineChecker]). It returns when the client
// closes its input (its in-flight calls are cancelled, killing their
// process groups, and waited for), when out breaks, or when ctx ends: then
// no new calls are accepted, running ones get Config.DrainTimeout to
// finish, and the rest are cancelled. Unless out broke, every response
// produced by then is written to out (and flushed, when out has a Flush
// method) before the session closes, the answers to requests on the
// client's last lines included. A client that does not read its responses
// holds that up for answerWait at most: the writes still blocked then are
// abandoned, so ServeStdio returns all the same.
//
// out must carry nothing but the protocol: the server never writes to it
// otherwise, and logs go to Config.Logger.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	answers := newAnswerTracker()
	listed, stopStartup := s.startup.stdioTimers()
	defer stopStartup()
	w := newResponseWriter(out, answers, listed)
	checked := &lineChecker{in: in, refuse: w.refuse, log: s.log}
	r := newRequestReader(checked, answers)
	// Every request's context carries the end of the input (the SDK
	// passes the values of this context on), so that the call middleware
	// can end the calls, and only the calls, when the client leaves.
	ss, err := s.mcp.Connect(context.WithValue(ctx, inputEndKey{}, r.inputEnded()), &mcp.IOTransport{
		Reader: r,
		Writer: w,
		// The checker bounds every line it passes on and hands over one
		// line per read, so the SDK's own bound, just above, is never
		// reached: reaching it would end the session.
		MaxLineLength: maxStdioLine + 2,
	}, nil)
	if err != nil {
		return err
	}
	var waitErr error
	ended := make(chan struct{})
	go func() {
		waitErr = ss.Wait()
		close(ended)
	}()

	select {
	case <-ended:
		// The output broke: the SDK has cancelled the calls; wait for them
		// so no process outlives ServeStdio.
		s.awaitCancelled()
		return waitErr
	case <-r.inputEnded():
		// The client closed its input, which is how a stdio client leaves.
		// The SDK has not seen the end (it would refuse to write from
		// then on). The call middleware has ended every call of the
		// session (see endOnInputEnd); every other request is answered as
		// usual, below.
		s.awaitCancelled()
	case <-ctx.Done():
		s.drain(s.cfg.DrainTimeout)
	}
	// The calls have returned, but the SDK writes their responses after
	// that, and ServerSession.Close refuses every write from the moment it
	// is called: close only once they are on the wire, or given up on.
	// Close waits for the writes in progress, so those a client that does
	// not read holds up are abandoned first.
	s.awaitAnswers(answers, ended)
	w.abandon()
	ss.Close()
	<-ended
	return nil
}

// answerWait bounds the wait, after the drain, for the responses to
// requests already read. A finished call is answered at once; only a
// handler the drain does not cover (one waiting for a person's approval)
// or one that ignores cancellation can use it up, and closing the session
// still waits for such a handler, but drops its response.
const answerWait = 5 * time.Second

// awaitAnswers waits until every request read from the client has been
// answered on the wire, the session has ended on its own (the client left,
// or the output broke: nothing more can be written), or answerWait passed.
func (s *Server) awaitAnswers(answers *answerTracker, ended <-chan struct{}) {
	timer := time.NewTimer(answerWait)
	defer timer.Stop()
	select {
	case <-answers.idleChan():
	case <-ended:
	case <-timer.C:
		s.log.Warn("closing the session with requests still unanswered", "requests", answers.unanswered(), "waited", answerWait)
	}
}

// methodListen is the request a client on protocol 2026-07-28 keeps open
// for list-changed notifications. It is answered only when the session
// closes, so shutdown does not wait for it.
const methodListen = "subscriptions/listen"

// requestReader passes the client's input through to the SDK and records
// every request it carries in answers before the SDK can read it.
//
// The stdio transport puts one message (or batch) on each line and lines
// never contain raw newlines, so a line is exactly one frame; it is decoded
// with the SDK's own decoder, so both agree on what is a request and what
// its id is.
//
// The end of the input (or a failure to read it) is withheld from the SDK
// until the transport is closed: the SDK stops writing the moment it reads
// the end, which would drop the answers to the client's last requests.
// inputEnded reports the end instead, to ServeStdio, which ends the
// session once they are answered, and to the call middleware, which ends
// the session's calls. Nothing is cancelled the SDK's way: a request it
// has read but not yet begun would then be answered with a bare "context
// canceled" and error code 0, a tools/list or a ping included.
type requestReader struct {
	in      io.Reader
	answers *answerTracker
	lines   lineSplitter

	lastByte byte          // the last byte passed on
	err      error         // the input's end, withheld until closed
	tail     []byte        // passed on after the input's end
	ended    chan struct{} // closed once err is set
	closed   chan struct{} // closed by Close
	closeOne sync.Once
}

func newRequestReader(in io.Reader, answers *answerTracker) *requestReader {
	return &requestReader{in: in, answers: answers, ended: make(chan struct{}), closed: make(chan struct{})}
}

func (r *requestReader) Read(p []byte) (int, error) {
	// The SDK reads on one goroutine: err and tail are its alone.
	if r.err == nil {
		n, err := r.in.Read(p)
		r.lines.feed(p[:n], r.expect)
		if n > 0 {
			r.lastByte = p[n-1]
		}
		if err == nil {
			return n, nil
		}
		// The SDK decodes a final message that lacks its newline.
		r.lines.end(r.expect)
		r.err = err
		if r.lastByte != 0 && r.lastByte != '\n' {
			r.tail = []byte{'\n'} // ends the last line for the SDK
		}
		close(r.ended)
		if n > 0 {
			return n, nil
		}
	}
	if len(r.tail) > 0 {
		n := copy(p, r.tail)
		r.tail = r.tail[n:]
		return n, nil
	}
	<-r.closed
	return 0, r.err
}

// inputEnded returns a channel closed once the input has ended.
func (r *requestReader) inputEnded() <-chan struct{} { return r.ended }

func (r *requestReader) expect(line []byte) {
	for _, msg := range decodeLine(line) {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method != methodListen {
			r.answers.expect(req.ID, req.Method)
		}
	}
}

// Close closes in if it can be closed, and releases a Read withholding the
// input's end: the SDK closes its transport when the session ends.
func (r *requestReader) Close() error {
	r.closeOne.Do(func() { close(r.closed) })
	if c, ok := r.in.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// responseWriter passes the server's output through to out, flushes it
// when out buffers, and marks a response answered once it is written in
// full. A write that fails leaves its requests unanswered: the broken
// output ends the session, which ends the wait for them.
//
// Each write to out runs on a goroutine of its own, so that abandon can
// end a write a client that stopped reading holds up: closing out cannot,
// as a blocked write to a pipe keeps its descriptor open. The SDK never
// reuses a buffer it wrote, so an abandoned write sends the bytes it was
// given, should the client ever read them.
type responseWriter struct {
	out     io.Writer
	answers *answerTracker
	// listed is called after the first answer to a tools/list is written
	// (see startup.go), at most once.
	listed func()

	mu        sync.Mutex // serialises writes and guards lines
	lines     lineSplitter
	abandoned chan struct{} // closed by abandon
	abandonMu sync.Once
}

func newResponseWriter(out io.Writer, answers *answerTracker, listed func()) *responseWriter {
	return &responseWriter{out: out, answers: answers, listed: listed, abandoned: make(chan struct{})}
}

// errOutputAbandoned fails the writes after abandon: the session is
// closing and the client has not read what was written before.
var errOutputAbandoned = errors.New("the client stopped reading its responses; the session is closing without them")

func (w *responseWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.abandoned:
		return 0, errOutputAbandoned
	default:
	}
	type written struct {
		n   int
		err error
	}
	done := make(chan written, 1)
	go func() {
		n, err := w.out.Write(p)
		if err == nil {
			if f, ok := w.out.(interface{ Flush() error }); ok {
				err = f.Flush()
			}
		}
		done <- written{n, err}
	}()
	var res written
	select {
	case res = <-done:
	case <-w.abandoned:
		return 0, errOutputAbandoned
	}
	if res.err != nil {
		return res.n, res.err
	}
	w.lines.feed(p, w.answer)
	return res.n, nil
}

// abandon fails the write in progress and every later one. ServeStdio
// calls it once it has waited for the answers as long as it will.
func (w *responseWriter) abandon() {
	w.abandonMu.Do(func() { close(w.abandoned) })
}

// refuse writes the error response to a line that carried no message: its
// id is null, as JSON-RPC 2.0 prescribes when the id cannot be known. It is
// one Write, so it never splits a line of the SDK's. A failed write is left
// for the SDK to find: the output is broken for it too.
func (w *responseWriter) refuse(code int64, message string) {
	resp, err := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      *struct{}      `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{JSONRPC: "2.0", Error: &jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return
	}
	_, _ = w.Write(append(resp, '\n'))
}

func (w *responseWriter) answer(line []byte) {
	if id, ok := responseID(line); ok {
		w.answered(id)
		return
	}
	for _, msg := range decodeLine(line) {
		if resp, ok := msg.(*jsonrpc.Response); ok {
			w.answered(resp.ID)
		}
	}
}

func (w *responseWriter) answered(id jsonrpc.ID) {
	if w.answers.answered(id) == "tools/list" && w.listed != nil {
		listed := w.listed
		w.listed = nil // under w.mu, held by Write
		listed()
	}
}

// responsePrefix is how the SDK begins every response it writes: its wire
// form puts the version tag first and the id second.
var responsePrefix = []byte(`{"jsonrpc":"2.0","id":`)

// responseID reads the id of a response the SDK wrote from the line's
// head alone: a list of a few hundred tools is a line of 200 KB, which
// decoding whole costs the server a fifth of a list's CPU, spent after
// every list it writes. It reports false for a line of any other shape,
// which decodeLine then reads whole; for a line it does read, the id is
// the one jsonrpc.DecodeMessage gives (a number decoded as a float64 and
// made an ID as the SDK makes it). The rest of the line is not checked:
// every line written here is JSON the SDK or refuse encoded.
func responseID(line []byte) (jsonrpc.ID, bool) {
	rest, ok := bytes.CutPrefix(line, responsePrefix)
	if !ok {
		return jsonrpc.ID{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(rest))
	tok, err := dec.Token()
	if err != nil {
		return jsonrpc.ID{}, false
	}
	switch tok.(type) {
	case float64, string:
	default:
		return jsonrpc.ID{}, false
	}
	after := rest[dec.InputOffset():]
	if !bytes.HasPrefix(after, []byte(`,"result":`)) && !bytes.HasPrefix(after, []byte(`,"error":`)) {
		return jsonrpc.ID{}, false // a request of the server's, or another shape
	}
	id, err := jsonrpc.MakeID(tok)
	return id, err == nil
}

// Close closes out if it can be closed. It does not wait for a write in
// progress, so that closing can interrupt a write to a client that stopped
// reading.
func (w *responseWriter) Close() error {
	if c, ok := w.out.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// decodeLine decodes one line of the stdio transport: a message or a
// batch. Whatever does not decode is skipped: the SDK rejects it, and it
// carries no request to answer.
func decodeLine(line []byte) []jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] != '[' {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil
		}
		return []jsonrpc.Message{msg}
	}
	var raws []json.RawMessage
	if json.Unmarshal(line, &raws) != nil {
		return nil
	}
	msgs := make([]jsonrpc.Message, 0, len(raws))
	for _, raw := range raws {
		if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
			msgs = append(msgs, msg)
		}
	}
	return msgs
}

// lineSplitter cuts a byte stream into lines, keeping the start of an
// unfinished line between calls.
type lineSplitter struct{ partial []byte }

// retainedLine is the most buffer kept between lines, so one large message
// does not pin its size in memory for the rest of the session.
const retainedLine = 64 << 10

// feed calls each with every line that b completes, without its newline.
// The line is only valid during the call.
func (l *lineSplitter) feed(b []byte, each func(line []byte)) {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.partial = append(l.partial, b...)
			return
		}
		line := b[:i]
		if len(l.partial) > 0 {
			l.partial = append(l.partial, line...)
			line = l.partial
		}
		each(line)
		l.reset()
		b = b[i+1:]
	}
}

// end calls each with an unfinished last line, if any.
func (l *lineSplitter) end(each func(line []byte)) {
	if len(l.partial) > 0 {
		each(l.partial)
	}
	l.reset()
}

func (l *lineSplitter) reset() {
	if cap(l.partial) > retainedLine {
		l.partial = nil
		return
	}
	l.partial = l.partial[:0]
}
