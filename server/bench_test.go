package server

import (
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// BenchmarkCallInProcessTool measures the server's own cost per call
// (lookup, validation, slot, result, log line) over an in-memory session.
func BenchmarkCallInProcessTool(b *testing.B) {
	s, _ := newServer(b, Config{}, customSet(b, echoTool(b)))
	cs := connect(b, s, legacyVersion, nil)
	args := map[string]any{"word": "hi"}
	b.ReportAllocs()
	for b.Loop() {
		if res := call(b, cs, "echo_json", args); res.IsError {
			b.Fatal(text(res))
		}
	}
}

// BenchmarkCallFixtureCommand measures a whole command call: validation,
// process start, capture, envelope.
func BenchmarkCallFixtureCommand(b *testing.B) {
	s, _ := newServer(b, Config{}, fixtureSet(b, exposure.Policy{}))
	cs := connect(b, s, legacyVersion, nil)
	args := map[string]any{"context": "bench", "subject": "hello"}
	for b.Loop() {
		if res := call(b, cs, "echo", args); res.IsError {
			b.Fatal(text(res))
		}
	}
}
