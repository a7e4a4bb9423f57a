package elicit

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests serve the fixture over streamable HTTP on a real socket: the
// protocol 2026-07-28 is served only by stateless HTTP servers, older
// versions by stateful ones (stateless ones cannot ask them anything).

func (f *fixture) connectHTTP(stateless bool, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	return connectClient(f.t, &mcp.StreamableClientTransport{Endpoint: f.serveHTTP(stateless)}, version, opts)
}

func TestHTTPApprovalRunsTheCommand(t *testing.T) {
	tests := []struct {
		name      string
		stateless bool
		version   string
	}{
		{"stateful/" + legacyVersion, false, legacyVersion},
		{"stateless/" + mrtrVersion, true, mrtrVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			a := answering("accept", map[string]any{"approve": true})
			cs := f.connectHTTP(tt.stateless, tt.version, a.options())

			res := call(t, cs, "rm", map[string]any{"name": "orders"})

			if res.IsError || f.ran.Load() != 1 {
				t.Fatalf("result = %q, ran %d; want one run", text(res), f.ran.Load())
			}
			if n := len(a.asked()); n != 1 {
				t.Errorf("asked %d times, want 1", n)
			}
		})
	}
}

func TestHTTPDeclineDoesNotRun(t *testing.T) {
	for _, tt := range []struct {
		stateless bool
		version   string
	}{{false, legacyVersion}, {true, mrtrVersion}} {
		t.Run(tt.version, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			cs := f.connectHTTP(tt.stateless, tt.version, answering("decline", nil).options())

			f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeDeclined, "the user declined; do not retry")
		})
	}
}

func TestStatefulHTTPLegacyWaitIsBoundedByTheTimeout(t *testing.T) {
	f := newFixture(t, fixtureOptions{gate: Options{Timeout: 20 * time.Millisecond}})
	cs := f.connectHTTP(false, legacyVersion, (&asker{answer: f.unanswered}).options())

	f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeTimeout, "did not answer")
}

func TestStatelessHTTPCannotAskLegacyClientsAndSaysSo(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	a := answering("accept", map[string]any{"approve": true})
	cs := f.connectHTTP(true, legacyVersion, a.options())

	f.wantRefused(call(t, cs, "rm", map[string]any{"name": "orders"}), CodeNoCapability, "stateless HTTP")
	if n := len(a.asked()); n != 0 {
		t.Errorf("asked %d times, want 0", n)
	}
}
