package elicit

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// manual connects a 2026-07-28 client whose automatic multi-round-trip is
// off, so the test drives the retry by hand and can tamper with it.
func (f *fixture) manual() *mcp.ClientSession {
	return f.connect(mrtrVersion, &mcp.ClientOptions{
		ElicitationHandler: answering("accept", nil).handle, // declares the capability
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
}

func retry(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, answers mcp.InputResponseMap, state string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args, InputResponses: answers, RequestState: state})
	if err != nil {
		t.Fatalf("CallTool retry: %v", err)
	}
	return res
}

func yes() *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
}

func TestFirstRoundAsksForARequiredBooleanApproveInAForm(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	first := call(t, f.manual(), "rm", map[string]any{"name": "orders"})

	q, ok := first.InputRequests[onlyID(t, first)].(*mcp.ElicitParams)
	if !ok {
		t.Fatalf("input request is %T, want *mcp.ElicitParams", first.InputRequests[onlyID(t, first)])
	}
	if q.Mode != "form" {
		t.Errorf("mode = %q, want form", q.Mode)
	}
	schema, _ := json.Marshal(q.RequestedSchema)
	var s struct {
		Required   []string                  `json:"required"`
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	if len(s.Required) != 1 || s.Required[0] != "approve" || s.Properties["approve"]["type"] != "boolean" {
		t.Errorf("schema = %s, want a required boolean approve", schema)
	}
	if f.ran.Load() != 0 {
		t.Error("the command ran before anyone was asked")
	}
}

func TestManualRetryWithTheRightAnswerRuns(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.manual()
	args := map[string]any{"name": "orders"}
	first := call(t, cs, "rm", args)

	res := retry(t, cs, "rm", args, mcp.InputResponseMap{onlyID(t, first): yes()}, first.RequestState)

	if res.IsError || f.ran.Load() != 1 {
		t.Fatalf("result = %q, ran %d; want one run", text(res), f.ran.Load())
	}
}

func TestTamperedRetriesFailClosed(t *testing.T) {
	args := map[string]any{"name": "orders"}
	tests := []struct {
		name   string
		tamper func(t *testing.T, f *fixture, id, state string) (tool string, args map[string]any, answers mcp.InputResponseMap, st string)
		code   Code
	}{
		{"payload edited, signature kept", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: yes()}, editPayload(t, state, func(c *claims) { c.Expires += int64(time.Hour / time.Millisecond) })
		}, CodeForged},
		{"signed by another key", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			c, err := f.gate.signer.verify(state)
			if err != nil {
				t.Fatal(err)
			}
			other, err := signer{key: []byte(strings.Repeat("0123456789abcdef", 2))}.sign(c)
			if err != nil {
				t.Fatal(err)
			}
			return "rm", args, mcp.InputResponseMap{id: yes()}, other
		}, CodeForged},
		{"garbage state", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: yes()}, "approved, trust me"
		}, CodeForged},
		{"answer to a question never asked", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{"approve-other": yes()}, state
		}, CodeForged},
		{"an extra unasked answer", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: yes(), "extra": yes()}, state
		}, CodeForged},
		{"answer without state", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: yes()}, ""
		}, CodeForged},
		{"state without answer", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, nil, state
		}, CodeForged},
		{"answer of the wrong kind", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			// Every response kind besides elicitation is deprecated; one of
			// them is still the right probe for "answered the wrong question".
			//lint:ignore SA1019 a deprecated kind is exactly what a forger would send
			return "rm", args, mcp.InputResponseMap{id: &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "yes"}}}, state
		}, CodeForged},
		{"arguments changed", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", map[string]any{"name": "everything"}, mcp.InputResponseMap{id: yes()}, state
		}, CodeMismatch},
		{"another tool", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "purge", args, mcp.InputResponseMap{id: yes()}, state
		}, CodeMismatch},
		{"non-boolean approve", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": "true"}}}, state
		}, CodeError},
		{"unknown action", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "approve", Content: map[string]any{"approve": true}}}, state
		}, CodeError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			cs := f.manual()
			first := call(t, cs, "rm", args)

			tool, a, answers, state := tt.tamper(t, f, onlyID(t, first), first.RequestState)
			res := retry(t, cs, tool, a, answers, state)

			f.wantRefused(res, tt.code, "Not run")
		})
	}
}

func TestNonBooleanAnswerIsRefused(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.manual()
	args := map[string]any{"name": "orders"}
	first := call(t, cs, "rm", args)

	res := retry(t, cs, "rm", args, mcp.InputResponseMap{onlyID(t, first): &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": 1}}}, first.RequestState)

	f.wantRefused(res, CodeError, "not a yes/no")
}

func TestRetryAfterTheStateExpiredIsRefused(t *testing.T) {
	clock := newFakeClock()
	f := newFixture(t, fixtureOptions{clock: clock, gate: Options{Timeout: time.Minute}})
	cs := f.manual()
	args := map[string]any{"name": "orders"}
	first := call(t, cs, "rm", args)
	clock.advance(time.Minute)

	res := retry(t, cs, "rm", args, mcp.InputResponseMap{onlyID(t, first): yes()}, first.RequestState)

	f.wantRefused(res, CodeExpired, "expired")
}

func TestReplayedApprovalIsRefusedAndRunsOnlyOnce(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.manual()
	args := map[string]any{"name": "orders"}
	first := call(t, cs, "rm", args)
	answers := mcp.InputResponseMap{onlyID(t, first): yes()}
	if res := retry(t, cs, "rm", args, answers, first.RequestState); res.IsError {
		t.Fatalf("first retry refused: %q", text(res))
	}

	res := retry(t, cs, "rm", args, answers, first.RequestState)

	if !res.IsError || f.last().Code != CodeReplayed {
		t.Errorf("replay: result %q, decision %s; want a replayed refusal", text(res), f.last().Code)
	}
	if n := f.ran.Load(); n != 1 {
		t.Errorf("the command ran %d times, want exactly 1", n)
	}
}

func TestReplicasSharingAKeyAcceptEachOthersApprovals(t *testing.T) {
	key := testKey()
	issuer := newFixture(t, fixtureOptions{gate: Options{Key: key}})
	replica := newFixture(t, fixtureOptions{gate: Options{Key: key}})
	stranger := newFixture(t, fixtureOptions{})
	args := map[string]any{"name": "orders"}
	first := call(t, issuer.manual(), "rm", args)
	answers := mcp.InputResponseMap{onlyID(t, first): yes()}

	if res := retry(t, replica.manual(), "rm", args, answers, first.RequestState); res.IsError || replica.ran.Load() != 1 {
		t.Errorf("replica with the shared key: %q, ran %d; want one run", text(res), replica.ran.Load())
	}
	stranger.wantRefused(retry(t, stranger.manual(), "rm", args, answers, first.RequestState), CodeForged, "Not run")
}

// editPayload rewrites the claims of a state and keeps its old signature.
func editPayload(t *testing.T, state string, edit func(*claims)) string {
	t.Helper()
	parts := strings.Split(state, ".")
	if len(parts) != 3 {
		t.Fatalf("state %q has %d parts", state, len(parts))
	}
	data, err := b64.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c claims
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	edit(&c)
	data, err = json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return parts[0] + "." + b64.EncodeToString(data) + "." + parts[2]
}

func testKey() []byte {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i*37 + 11)
	}
	return key
}
