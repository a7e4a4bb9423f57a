package server

import (
	"sync/atomic"
	"testing"
)

// Config.Listed marks the end of a stdio client's start-up: it is called
// once, after the first tools/list answer is on the wire, and never for the
// handshake, another method or a later list.
func TestServeStdioCallsListedOnceTheFirstListIsWritten(t *testing.T) {
	var calls atomic.Int32
	s, _ := newServer(t, Config{Listed: func() { calls.Add(1) }}, customSet(t, echoTool(t)))
	peer, _, _ := rawStdio(t, s)

	peer.Call(2, "ping", nil)
	if n := calls.Load(); n != 0 {
		t.Fatalf("Listed was called %d times by the handshake and a ping, want 0", n)
	}
	if list := peer.Call(3, "tools/list", nil); list["result"] == nil {
		t.Fatalf("tools/list answered %v", list)
	}
	// The server writes one line at a time and calls Listed before it
	// writes the next, so the answer to a ping sent now follows the call.
	peer.Call(4, "ping", nil)
	if n := calls.Load(); n != 1 {
		t.Fatalf("after the first list, Listed was called %d times, want 1", n)
	}
	peer.Call(5, "tools/list", nil)
	peer.Call(6, "ping", nil)
	if n := calls.Load(); n != 1 {
		t.Errorf("after a second list, Listed was called %d times, want still 1", n)
	}
}
