package elicit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	res, err := tryRetry(t, cs, tool, args, answers, state)
	if err != nil {
		t.Fatalf("CallTool retry: %v", err)
	}
	return res
}

func tryRetry(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, answers mcp.InputResponseMap, state string) (*mcp.CallToolResult, error) {
	t.Helper()
	return cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args, InputResponses: answers, RequestState: state})
}

// wantInvalidState checks that a retry was answered with the JSON-RPC
// invalid-params error of a state this server did not issue, and that
// nothing ran.
func (f *fixture) wantInvalidState(res *mcp.CallToolResult, err error) {
	t := f.t
	t.Helper()
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "requestState") {
		t.Errorf("retry = %v, %v; want a -32602 invalid requestState error", res, err)
	}
	if got := f.last(); got.Code != CodeForged || got.Reasked {
		t.Errorf("decision = %s (reasked %v), want forged", got.Code, got.Reasked)
	}
	if n := f.ran.Load(); n != 0 {
		t.Errorf("the command ran %d times, want 0", n)
	}
}

// wantAskedAgain checks that a retry whose answer did not answer the
// question first (whose state was oldState) was answered with a fresh
// question, decided as code, and that nothing ran. It returns the fresh
// question's input id.
func (f *fixture) wantAskedAgain(res *mcp.CallToolResult, code Code, oldState string) string {
	t := f.t
	t.Helper()
	if res.IsError || len(res.InputRequests) != 1 || res.RequestState == "" || res.RequestState == oldState {
		t.Fatalf("result = %q (inputs %d, state %q); want a fresh question with a new state", text(res), len(res.InputRequests), res.RequestState)
	}
	if got := f.last(); got.Code != code || !got.Reasked || !got.Pending() {
		t.Errorf("decision = %s (reasked %v), want %s and asked again", got.Code, got.Reasked, code)
	}
	if n := f.ran.Load(); n != 0 {
		t.Errorf("the command ran %d times, want 0", n)
	}
	return onlyID(t, res)
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

// The outcomes of a tampered retry: nothing runs in any of them.
const (
	outcomeRefused      = iota // an isError refusal
	outcomeAskedAgain          // a fresh question: the answer did not answer the one asked
	outcomeInvalidState        // a -32602 error: the state is not one this server issued
)

func TestTamperedRetriesFailClosed(t *testing.T) {
	args := map[string]any{"name": "orders"}
	tests := []struct {
		name    string
		tamper  func(t *testing.T, f *fixture, id, state string) (tool string, args map[string]any, answers mcp.InputResponseMap, st string)
		code    Code
		outcome int
	}{
		{"payload edited, signature kept", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: yes()}, editPayload(t, state, func(c *claims) { c.Expires += int64(time.Hour / time.Millisecond) })
		}, CodeForged, outcomeInvalidState},
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
		}, CodeForged, outcomeInvalidState},
		{"garbage state", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: yes()}, "approved, trust me"
		}, CodeForged, outcomeInvalidState},
		{"answer to a question never asked", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{"approve-other": yes()}, state
		}, CodeForged, outcomeAskedAgain},
		{"answer without state", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: yes()}, ""
		}, CodeForged, outcomeAskedAgain},
		{"state without answer", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, nil, state
		}, CodeForged, outcomeAskedAgain},
		{"answer of the wrong kind", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			// Every response kind besides elicitation is deprecated; one of
			// them is still the right probe for "answered the wrong question".
			//lint:ignore SA1019 a deprecated kind is exactly what a forger would send
			return "rm", args, mcp.InputResponseMap{id: &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "yes"}}}, state
		}, CodeForged, outcomeAskedAgain},
		{"arguments changed", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", map[string]any{"name": "everything"}, mcp.InputResponseMap{id: yes()}, state
		}, CodeMismatch, outcomeRefused},
		{"another tool", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "purge", args, mcp.InputResponseMap{id: yes()}, state
		}, CodeMismatch, outcomeRefused},
		{"non-boolean approve", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": "true"}}}, state
		}, CodeError, outcomeRefused},
		{"unknown action", func(t *testing.T, f *fixture, id, state string) (string, map[string]any, mcp.InputResponseMap, string) {
			return "rm", args, mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "approve", Content: map[string]any{"approve": true}}}, state
		}, CodeError, outcomeRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			cs := f.manual()
			first := call(t, cs, "rm", args)

			tool, a, answers, state := tt.tamper(t, f, onlyID(t, first), first.RequestState)
			res, err := tryRetry(t, cs, tool, a, answers, state)

			switch tt.outcome {
			case outcomeInvalidState:
				f.wantInvalidState(res, err)
			case outcomeAskedAgain:
				if err != nil {
					t.Fatalf("CallTool retry: %v", err)
				}
				f.wantAskedAgain(res, tt.code, first.RequestState)
			default:
				if err != nil {
					t.Fatalf("CallTool retry: %v", err)
				}
				f.wantRefused(res, tt.code, "Not run")
			}
		})
	}
}

// Answers under ids the server did not ask are ignored, as the protocol has
// a server do with what it does not recognise: the answer to the question
// asked decides alone, and an approval under any other id counts for
// nothing.
func TestAnswersToQuestionsNotAskedAreIgnored(t *testing.T) {
	args := map[string]any{"name": "orders"}
	unasked := func(answers mcp.InputResponseMap) mcp.InputResponseMap {
		answers["approve-"+strings.Repeat("0", 2*nonceBytes)] = yes()
		answers["unknown_extra_key"] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"foo": "bar"}}
		return answers
	}
	tests := []struct {
		name   string
		answer func(id string) mcp.InputResponseMap
		code   Code
		ran    int32
	}{
		{"an approval", func(id string) mcp.InputResponseMap { return unasked(mcp.InputResponseMap{id: yes()}) }, CodeApproved, 1},
		{"a decline", func(id string) mcp.InputResponseMap {
			return unasked(mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "decline"}})
		}, CodeDeclined, 0},
		{"a non-boolean approve", func(id string) mcp.InputResponseMap {
			return unasked(mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": "true"}}})
		}, CodeError, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			cs := f.manual()
			first := call(t, cs, "rm", args)
			answers := tt.answer(onlyID(t, first))

			res := retry(t, cs, "rm", args, answers, first.RequestState)

			d := f.last()
			if d.Code != tt.code || res.IsError != (tt.code != CodeApproved) || res.NeedsInput() || f.ran.Load() != tt.ran {
				t.Fatalf("decision %s (%s), result %q, ran %d; want %s, ran %d", d.Code, d.Detail, text(res), f.ran.Load(), tt.code, tt.ran)
			}
			if !strings.Contains(d.Detail, "ignored 2 answers to questions not asked") {
				t.Errorf("detail = %q, want the ignored answers counted", d.Detail)
			}
			// The answer, extras and all, is used once.
			if res := retry(t, cs, "rm", args, answers, first.RequestState); !res.IsError || f.last().Code != CodeReplayed || f.ran.Load() != tt.ran {
				t.Errorf("replayed: decision %s, result %q, ran %d", f.last().Code, text(res), f.ran.Load())
			}
		})
	}
}

// A fresh question is a question like the first: answering it runs the
// command once, and the answer to the first one still cannot be replayed
// against it.
func TestAnsweringTheFreshQuestionRunsOnce(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.manual()
	args := map[string]any{"name": "orders"}
	first := call(t, cs, "rm", args)
	again := retry(t, cs, "rm", args, mcp.InputResponseMap{"wrong-key": yes()}, first.RequestState)
	id := f.wantAskedAgain(again, CodeForged, first.RequestState)
	if id == onlyID(t, first) {
		t.Fatalf("the fresh question reuses the first one's id %q", id)
	}

	if res := retry(t, cs, "rm", args, mcp.InputResponseMap{onlyID(t, first): yes()}, again.RequestState); !res.IsError && len(res.InputRequests) == 0 {
		t.Fatalf("the first question's answer approved the fresh one: %q", text(res))
	}
	res := retry(t, cs, "rm", args, mcp.InputResponseMap{id: yes()}, again.RequestState)

	if res.IsError || f.ran.Load() != 1 {
		t.Fatalf("result = %q, ran %d; want one run", text(res), f.ran.Load())
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

func TestRetryAfterTheStateExpiredIsAskedAgain(t *testing.T) {
	clock := newFakeClock()
	f := newFixture(t, fixtureOptions{clock: clock, gate: Options{Timeout: time.Minute}})
	cs := f.manual()
	args := map[string]any{"name": "orders"}
	first := call(t, cs, "rm", args)
	clock.Advance(time.Minute)

	res := retry(t, cs, "rm", args, mcp.InputResponseMap{onlyID(t, first): yes()}, first.RequestState)

	id := f.wantAskedAgain(res, CodeExpired, first.RequestState)
	if d := f.last(); !strings.Contains(d.Detail, "expired") || !strings.Contains(d.Detail, "asked again") {
		t.Errorf("detail %q does not say the state expired and the user was asked again", d.Detail)
	}
	if res := retry(t, cs, "rm", args, mcp.InputResponseMap{id: yes()}, res.RequestState); res.IsError || f.ran.Load() != 1 {
		t.Fatalf("answering the fresh question: %q, ran %d; want one run", text(res), f.ran.Load())
	}
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
	stranger.wantInvalidState(tryRetry(t, stranger.manual(), "rm", args, answers, first.RequestState))
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
