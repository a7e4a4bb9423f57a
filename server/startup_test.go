package server

import (
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// Over stdio the start-up is over only once the first tools/list answer
// is on the wire (plus the settle, zero here): not after the handshake or
// another method. By then the server has readied its set: a deferred
// set's search index is built.
func TestStdioStartupIsOverAfterTheFirstListIsWritten(t *testing.T) {
	s, _ := newServer(t, Config{Defer: DeferAlways}, fixtureSet(t, exposure.Policy{}))
	s.startup.settle, s.startup.window = 0, time.Hour
	peer, _, _ := rawStdio(t, s)

	peer.Call(2, "ping", nil)
	select {
	case <-s.StartupOver():
		t.Fatal("the start-up was over after the handshake and a ping, before any list")
	default:
	}
	if s.discovery.Built(s.Tools()) {
		t.Fatal("the search index was built before the start-up was over")
	}
	if list := peer.Call(3, "tools/list", nil); list["result"] == nil {
		t.Fatalf("tools/list answered %v", list)
	}
	select {
	case <-s.StartupOver():
	case <-time.After(10 * time.Second):
		t.Fatal("the start-up was not over 10 s after the first list was written")
	}
	if !s.discovery.Built(s.Tools()) {
		t.Error("the start-up is over, but the deferred set's search index is not built")
	}
}

// A client that never lists ends the start-up after the window.
func TestStdioStartupIsOverAfterTheWindowWithoutAList(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	s.startup.settle, s.startup.window = time.Hour, 0
	peer, _, _ := rawStdio(t, s)
	peer.Call(2, "ping", nil)
	select {
	case <-s.StartupOver():
	case <-time.After(10 * time.Second):
		t.Fatal("the start-up was not over 10 s after a window of 0")
	}
}
