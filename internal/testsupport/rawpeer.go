package testsupport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"
)

// RawPeer speaks newline-delimited JSON-RPC to a stdio server byte for
// byte, for tests that must send what no SDK client would. It reads every
// line the server writes; Next fails the test on one that is not a JSON
// object.
type RawPeer struct {
	t        testing.TB
	w        io.Writer
	lines    chan rawLine
	patience time.Duration
}

type rawLine struct {
	msg  Message // nil when text is not a JSON object
	text string
}

// Message is one JSON-RPC message as a RawPeer read it.
type Message = map[string]any

// NewRawPeer starts reading the server's output r; Send writes to w.
// patience bounds each wait for a message.
func NewRawPeer(t testing.TB, w io.Writer, r io.Reader, patience time.Duration) *RawPeer {
	p := &RawPeer{t: t, w: w, lines: make(chan rawLine, 64), patience: patience}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var msg Message
			_ = json.Unmarshal(sc.Bytes(), &msg)
			p.lines <- rawLine{msg: msg, text: sc.Text()}
		}
	}()
	return p
}

// Send writes line and a newline in one write.
func (p *RawPeer) Send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatalf("sending %.80q: %v", line, err)
	}
}

// Call sends a request with the given id, method and params (marshalled
// as JSON) and returns its response, skipping what comes before it.
func (p *RawPeer) Call(id int, method string, params any) Message {
	p.t.Helper()
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		p.t.Fatal(err)
	}
	p.Send(string(raw))
	return p.Response(id)
}

// Response waits for the response to the request with id, skipping every
// other message.
func (p *RawPeer) Response(id int) Message {
	p.t.Helper()
	for {
		msg := p.Next(fmt.Sprintf("the response to request %d", id))
		if n, ok := msg["id"].(float64); ok && n == float64(id) && msg["method"] == nil {
			return msg
		}
	}
}

// Next waits for the next message the server writes, and fails the test
// if the server's output ends first.
func (p *RawPeer) Next(what string) Message {
	p.t.Helper()
	l := Await(p.t, p.lines, p.patience, what)
	switch {
	case l.text == "" && l.msg == nil:
		p.t.Fatalf("the server's output ended while waiting for %s", what)
	case l.msg == nil:
		p.t.Fatalf("the server wrote a line that is not a JSON object: %.200q", l.text)
	}
	return l.msg
}

// Initialize performs the initialize handshake at the given protocol
// version (one that has it: before 2026-07-28).
func (p *RawPeer) Initialize(id int, version string) {
	p.t.Helper()
	resp := p.Call(id, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "raw", "version": "1"},
	})
	if resp["error"] != nil {
		p.t.Fatalf("initialize: %v", resp["error"])
	}
	p.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}
