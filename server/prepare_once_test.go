package server

import (
	"context"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// countPrepares makes s count the calls it validates and renders.
func countPrepares(s *Server) *atomic.Int32 {
	var n atomic.Int32
	s.onPrepare = func(string) { n.Add(1) }
	return &n
}

// nonce is the form of an approval's nonce in a call line.
var nonce = regexp.MustCompile(`^[0-9a-f]{32}$`)

// oneLine returns the only call line, failing the test unless there is
// exactly one.
func oneLine(t *testing.T, logs *logBuffer) map[string]any {
	t.Helper()
	lines := logs.records("tool call")
	if len(lines) != 1 {
		t.Fatalf("%d call lines for one call, want 1:\n%s", len(lines), logs)
	}
	return lines[0]
}

func TestLegacyGatedCallIsPreparedAndLoggedOnce(t *testing.T) {
	cases := []struct {
		name             string
		action           string
		approve          bool
		decision, result string
		runs             bool
	}{
		{"approved", "accept", true, "approved", "ok", true},
		{"declined", "decline", false, "declined", "refused", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
			prepares := countPrepares(s)
			asked := make(chan string, 10)
			cs := connect(t, s, legacyVersion, answering(c.action, c.approve, asked))
			path := tempPath(t, "touched")

			res := call(t, cs, "touch", map[string]any{"context": "test", "path": path})

			wait(t, asked, "the approval question")
			if res.IsError == c.runs || exists(t, path) != c.runs {
				t.Fatalf("result = %q (isError %v); want the command run: %v", text(res), res.IsError, c.runs)
			}
			if n := prepares.Load(); n != 1 {
				t.Errorf("the call was prepared %d times over the SDK's two handler passes, want once", n)
			}
			line := oneLine(t, logs)
			if line["decision"] != c.decision || line["result"] != c.result || line["kind"] != "application" {
				t.Errorf("line = %v, want decision %s, result %s, kind application", line, c.decision, c.result)
			}
			if a, _ := line["approval"].(string); !nonce.MatchString(a) {
				t.Errorf("approval = %v, want the approval's nonce", line["approval"])
			}
		})
	}
}

func TestLegacyTimeoutIsOneLineWithTheCall(t *testing.T) {
	gate, err := elicit.NewGate(elicit.Options{Timeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s, logs := newServer(t, Config{Gate: gate}, fixtureSet(t, exposure.Policy{}))
	prepares := countPrepares(s)
	cs := connect(t, s, legacyVersion, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			<-ctx.Done() // the person never answers
			return nil, ctx.Err()
		},
	})
	path := tempPath(t, "touched")

	res := call(t, cs, "touch", map[string]any{"context": "test", "path": path})

	if !res.IsError || exists(t, path) {
		t.Fatalf("result = %q (isError %v), want a refusal and nothing run", text(res), res.IsError)
	}
	if n := prepares.Load(); n != 1 {
		t.Errorf("prepared %d times, want once", n)
	}
	line := oneLine(t, logs)
	if line["decision"] != "timeout" || line["result"] != "refused" || line["kind"] != "application" {
		t.Errorf("line = %v, want decision timeout, result refused, and the kind the handler knew", line)
	}
	if a, _ := line["approval"].(string); !nonce.MatchString(a) {
		t.Errorf("approval = %v, want the nonce of the question that went unanswered", line["approval"])
	}
}

func TestMultiRoundTripApprovalIsTwoLinesSharingTheNonce(t *testing.T) {
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	prepares := countPrepares(s)
	asked := make(chan string, 10)
	cs := connect(t, s, modernVersion, answering("accept", true, asked))
	path := tempPath(t, "touched")

	if res := call(t, cs, "touch", map[string]any{"context": "test", "path": path}); res.IsError || !exists(t, path) {
		t.Fatalf("approved call = %q (isError %v), want it run", text(res), res.IsError)
	}

	// The question and the answered retry are two requests; each is
	// prepared and logged once.
	if n := prepares.Load(); n != 2 {
		t.Errorf("prepared %d times for two requests, want 2", n)
	}
	lines := logs.records("tool call")
	if len(lines) != 2 {
		t.Fatalf("%d call lines, want one per request:\n%s", len(lines), logs)
	}
	ask, run := lines[0], lines[1]
	if ask["decision"] != "pending" || ask["result"] != "input_required" || run["decision"] != "approved" || run["result"] != "ok" {
		t.Errorf("lines = %v and %v, want the question then the approved run", ask, run)
	}
	if a, _ := ask["approval"].(string); !nonce.MatchString(a) || run["approval"] != a {
		t.Errorf("approvals %v and %v, want one nonce linking both lines", ask["approval"], run["approval"])
	}
}

func TestUngatedCallIsPreparedOnceAndItsLineHasNoApproval(t *testing.T) {
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	prepares := countPrepares(s)
	cs := connect(t, s, legacyVersion, nil)

	res := call(t, cs, "echo", map[string]any{"context": "test", "subject": "x"})

	if res.IsError {
		t.Fatal(text(res))
	}
	if n := prepares.Load(); n != 1 {
		t.Errorf("prepared %d times, want once", n)
	}
	line := oneLine(t, logs)
	if _, ok := line["approval"]; ok || line["decision"] != "ungated" {
		t.Errorf("line = %v, want an ungated call without an approval", line)
	}
	if env := envelope(t, res); env.Command != line["argv"] {
		t.Errorf("result command %q, logged argv %q: want the one display line", env.Command, line["argv"])
	}
}

func TestInvalidArgumentsLogTheToolNameAsArgv(t *testing.T) {
	s, logs := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, nil)

	if res := call(t, cs, "touch", map[string]any{"nosuch": true}); !res.IsError {
		t.Fatalf("invalid arguments accepted: %s", text(res))
	}

	if line := oneLine(t, logs); line["argv"] != "touch" || line["result"] != "invalid_arguments" {
		t.Errorf("line = %v, want argv touch and result invalid_arguments", line)
	}
}
