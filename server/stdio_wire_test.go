package server

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// chunks is a reader that returns its chunks one Read at a time, then EOF,
// as a pipe delivers what a client wrote in several writes.
type chunks []string

func (c *chunks) Read(p []byte) (int, error) {
	if len(*c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, (*c)[0])
	if n < len((*c)[0]) {
		(*c)[0] = (*c)[0][n:]
	} else {
		*c = (*c)[1:]
	}
	return n, nil
}

// pending lists the unanswered ids as strings, sorted.
func pending(a *answerTracker) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ids []string
	for id := range a.pending {
		ids = append(ids, fmt.Sprintf("%v", id.Raw()))
	}
	slices.Sort(ids)
	return ids
}

func idle(a *answerTracker) bool {
	select {
	case <-a.idleChan():
		return true
	default:
		return false
	}
}

func TestRequestReaderExpectsAnAnswerForEveryCallItPassesOn(t *testing.T) {
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"x"}}`
	}
	tests := []struct {
		name   string
		chunks chunks
		want   []string
	}{
		{"a call with a numeric id", chunks{call("1") + "\n"}, []string{"1"}},
		{"a call with a string id", chunks{call(`"a"`) + "\n"}, []string{"a"}},
		{"a notification", chunks{`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"}, nil},
		{"a response to the server's own request", chunks{`{"jsonrpc":"2.0","id":3,"result":{}}` + "\n"}, nil},
		{"a list-changed stream, answered only at close", chunks{`{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{}}` + "\n"}, nil},
		{"a batch", chunks{"[" + call("1") + `,{"jsonrpc":"2.0","method":"notifications/x"},` + call(`"b"`) + "]\n"}, []string{"1", "b"}},
		{"calls split across reads", chunks{call("4")[:9], call("4")[9:] + "\n" + call("5")[:20], call("5")[20:] + "\r\n"}, []string{"4", "5"}},
		{"a last call without its newline", chunks{call("6")}, []string{"6"}},
		{"lines that are not JSON-RPC", chunks{"not json\n", `{"id":8,"method":"ping"}` + "\n", "\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAnswerTracker()
			got, err := readAllReleased(newRequestReader(&tt.chunks, a))
			if err != nil {
				t.Fatalf("reading: %v", err)
			}
			if len(got) == 0 && tt.want != nil {
				t.Fatal("nothing passed through")
			}
			if ids := pending(a); !slices.Equal(ids, tt.want) {
				t.Errorf("expected answers to %v, want %v", ids, tt.want)
			}
			if idle(a) != (len(tt.want) == 0) {
				t.Errorf("idle = %v with %d requests pending", idle(a), len(tt.want))
			}
		})
	}
}

// readAllReleased reads r to the end of its input, closing it once the end
// is reached, as ServeStdio does.
func readAllReleased(r *requestReader) ([]byte, error) {
	go func() {
		<-r.inputEnded()
		r.Close()
	}()
	return io.ReadAll(r)
}

// The stream passes through unchanged, a last line that lacks its newline
// given one; nothing follows, even with a request left unanswered (the
// SDK would answer one it has not begun with a bare "context canceled").
func TestRequestReaderPassesTheStreamThroughUnchanged(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   chunks
	}{
		{"last line unfinished", chunks{`{"jsonrpc":"2.0","id":1,"me`, `thod":"ping"}` + "\n" + `{"jsonrpc"`, `:"2.0","method":"x"}`}},
		{"last line finished", chunks{`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := strings.Join(tt.in, "")
			if !strings.HasSuffix(want, "\n") {
				want += "\n"
			}
			got, err := readAllReleased(newRequestReader(&tt.in, newAnswerTracker()))
			if err != nil || string(got) != want {
				t.Errorf("read %q, %v; want %q", got, err, want)
			}
		})
	}
}

// recordingWriter records writes and flushes, and fails them on demand.
// At every flush it notes which ids were still unanswered.
type recordingWriter struct {
	answers            *answerTracker
	written            strings.Builder
	writeErr, flushErr error
	pendingAtFlush     [][]string
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.writeErr != nil {
		return 0, w.writeErr
	}
	return w.written.Write(p)
}

func (w *recordingWriter) Flush() error {
	w.pendingAtFlush = append(w.pendingAtFlush, pending(w.answers))
	return w.flushErr
}

func TestResponseWriterAnswersARequestOnlyOnceItsResponseIsOut(t *testing.T) {
	result := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` + "\n" }
	broken := errors.New("broken pipe")
	tests := []struct {
		name     string
		expect   []string // ids the client sent, in order
		writes   []string
		writeErr error
		flushErr error
		want     []string // still unanswered afterwards
	}{
		{"one response", []string{"1", "2"}, []string{result("1")}, nil, nil, []string{"2"}},
		{"every response", []string{"1", `"a"`}, []string{result(`"a"`), result("1")}, nil, nil, nil},
		{"a batch response", []string{"1", "2"}, []string{"[" + strings.TrimSpace(result("1")) + "," + strings.TrimSpace(result("2")) + "]\n"}, nil, nil, nil},
		{"an error response", []string{"3"}, []string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}` + "\n"}, nil, nil, nil},
		{"a response written in two parts", []string{"4"}, []string{result("4")[:10], result("4")[10:]}, nil, nil, nil},
		{"a notification or the server's own request", []string{"5"}, []string{`{"jsonrpc":"2.0","method":"notifications/progress"}` + "\n", `{"jsonrpc":"2.0","id":5,"method":"elicitation/create"}` + "\n"}, nil, nil, []string{"5"}},
		{"a response to a request never read", []string{"6"}, []string{result("99")}, nil, nil, []string{"6"}},
		{"a failed write", []string{"7"}, []string{result("7")}, broken, nil, []string{"7"}},
		{"a failed flush", []string{"8"}, []string{result("8")}, nil, broken, []string{"8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAnswerTracker()
			for _, id := range tt.expect {
				(&requestReader{answers: a}).expect([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`))
			}
			out := &recordingWriter{answers: a, writeErr: tt.writeErr, flushErr: tt.flushErr}
			w := &responseWriter{out: out, answers: a}
			for _, p := range tt.writes {
				_, err := w.Write([]byte(p))
				want := tt.writeErr
				if want == nil {
					want = tt.flushErr
				}
				if err != want {
					t.Fatalf("Write returned %v, want %v", err, want)
				}
			}
			if ids := pending(a); !slices.Equal(ids, tt.want) {
				t.Errorf("unanswered %v, want %v", ids, tt.want)
			}
			if idle(a) != (len(tt.want) == 0) {
				t.Errorf("idle = %v with %v unanswered", idle(a), tt.want)
			}
			if tt.writeErr == nil && out.written.String() != strings.Join(tt.writes, "") {
				t.Errorf("wrote %q, want %q", out.written.String(), strings.Join(tt.writes, ""))
			}
		})
	}
}

func TestResponseWriterFlushesEachWriteBeforeAnsweringIt(t *testing.T) {
	a := newAnswerTracker()
	(&requestReader{answers: a}).expect([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	out := &recordingWriter{answers: a}
	w := &responseWriter{out: out, answers: a}
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if len(out.pendingAtFlush) != 1 || !slices.Equal(out.pendingAtFlush[0], []string{"1"}) {
		t.Errorf("flushes saw unanswered %v, want one flush before the answer ([[1]])", out.pendingAtFlush)
	}
	if !idle(a) {
		t.Error("the flushed response left its request unanswered")
	}
}

func TestAnswerTrackerIsIdleOnlyWhileNothingIsPending(t *testing.T) {
	a := newAnswerTracker()
	r := &requestReader{answers: a}
	if !idle(a) {
		t.Fatal("a new tracker is not idle")
	}
	r.expect([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	r.expect([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)) // a reused id counts once
	r.expect([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	before := a.idleChan()
	w := &responseWriter{out: io.Discard, answers: a}
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	if idle(a) || a.unanswered() != 1 {
		t.Fatalf("idle %v with %d unanswered after one of two answers", idle(a), a.unanswered())
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"))
	select {
	case <-before:
	default:
		t.Error("a waiter's channel did not close when the last answer went out")
	}
	r.expect([]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
	if idle(a) {
		t.Error("idle again while a new request waits")
	}
}
