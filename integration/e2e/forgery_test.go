package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests drive the 2026-07-28 multi-round-trip by hand (the SDK's
// automatic retries disabled) against the stdio binary, and tamper with the
// retry the way a broken or hostile client could. The file touch would
// create proves whether anything ran.

var yes = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}

// manualSession connects a client that can elicit (so the server asks) but
// answers nothing by itself: the test builds every retry.
func manualSession(t *testing.T) *session {
	t.Helper()
	return startStdio(t, client{
		protocol: modernProtocol,
		manual:   true,
		elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server elicited directly on 2026-07-28")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}, fixtureBin)
}

// question makes the first round of a gated call and returns the
// input-required result with its single question id.
func question(t *testing.T, s *session, a map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	first := s.call(t, "touch", a)
	if !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("first round is not a question: %s", text(first))
	}
	var id string
	for k, req := range first.InputRequests {
		id = k
		if _, ok := req.(*mcp.ElicitParams); !ok {
			t.Fatalf("input request %q is a %T, not an elicitation", k, req)
		}
	}
	return first, id
}

func retry(t *testing.T, s *session, a map[string]any, answers mcp.InputResponseMap, state string) *mcp.CallToolResult {
	t.Helper()
	res, err := tryRetry(t, s, a, answers, state)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	return res
}

func tryRetry(t *testing.T, s *session, a map[string]any, answers mcp.InputResponseMap, state string) (*mcp.CallToolResult, error) {
	t.Helper()
	return s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "touch", Arguments: a, InputResponses: answers, RequestState: state})
}

// askedAgain checks that a retry was answered with a fresh question (a new
// state), logged with decision code, and that nothing ran; it returns the
// question and its id.
func askedAgain(t *testing.T, s *session, res *mcp.CallToolResult, oldState, code string, paths ...string) (*mcp.CallToolResult, string) {
	t.Helper()
	if res.IsError || !res.NeedsInput() || len(res.InputRequests) != 1 || res.RequestState == oldState {
		t.Fatalf("not a fresh question: %s (state %q)", text(res), res.RequestState)
	}
	for _, p := range paths {
		if exists(p) {
			t.Fatalf("%s was created: the command ran", p)
		}
	}
	s.log.reasked(t, "touch", code)
	var id string
	for k := range res.InputRequests {
		id = k
	}
	return res, id
}

// refused checks that the nth call was refused with decision code and that
// nothing ran.
func refused(t *testing.T, s *session, n int, res *mcp.CallToolResult, code string, paths ...string) {
	t.Helper()
	if !res.IsError || res.NeedsInput() {
		t.Fatalf("not refused: %s", text(res))
	}
	for _, p := range paths {
		if exists(p) {
			t.Fatalf("%s was created: the command ran", p)
		}
	}
	if rec := s.log.nthCall(t, "touch", n); rec["decision"] != code {
		t.Errorf("decision = %v, want %s (%v)", rec["decision"], code, rec)
	}
}

// reasked waits for the log line of a retry that was asked again: its
// decision says why its answer was not taken, its result is the question.
func (b *logBuffer) reasked(t *testing.T, tool, code string) map[string]any {
	t.Helper()
	return b.waitRecords(t, "for a call of "+tool+" asked again", func(recs []map[string]any) map[string]any {
		for _, r := range recs {
			if r["msg"] == "tool call" && r["tool"] == tool && r["result"] == "input_required" && r["decision"] == code {
				return r
			}
		}
		return nil
	})
}

func TestManualApprovalRunsExactlyOnce(t *testing.T) {
	s := manualSession(t)
	path := filepath.Join(t.TempDir(), "touched")
	a := args("path", path)
	first, id := question(t, s, a)
	if exists(path) {
		t.Fatal("ran before the answer")
	}
	answers := mcp.InputResponseMap{id: yes}
	if res := retry(t, s, a, answers, first.RequestState); res.IsError || !exists(path) {
		t.Fatalf("an approved retry did not run: %s", text(res))
	}

	// The same approval again: a replay must not run the command twice.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	refused(t, s, 2, retry(t, s, a, answers, first.RequestState), "replayed", path)
}

// Every tampered retry fails closed: a changed call is refused, a state this
// server did not issue is a protocol error (-32602), and an answer that
// does not answer the question asked is met with a fresh question, which
// runs the command only once answered itself.
func TestTamperedRetriesFailClosed(t *testing.T) {
	cases := []struct {
		name    string
		code    string
		outcome string // refused, invalid or asked
		tamper  func(state, id string, a map[string]any) (mcp.InputResponseMap, string, map[string]any)
	}{
		{"changed arguments", "mismatch", "refused", func(state, id string, a map[string]any) (mcp.InputResponseMap, string, map[string]any) {
			b := args("path", a["path"].(string)+"-elsewhere")
			return mcp.InputResponseMap{id: yes}, state, b
		}},
		{"forged state", "forged", "invalid", func(state, id string, a map[string]any) (mcp.InputResponseMap, string, map[string]any) {
			forged := []byte(state)
			i := len(forged) / 2
			if forged[i] == 'A' {
				forged[i] = 'B'
			} else {
				forged[i] = 'A'
			}
			return mcp.InputResponseMap{id: yes}, string(forged), a
		}},
		{"answer to a question never asked", "forged", "asked", func(state, id string, a map[string]any) (mcp.InputResponseMap, string, map[string]any) {
			return mcp.InputResponseMap{"approve-not-asked": yes}, state, a
		}},
		{"answer without state", "forged", "asked", func(state, id string, a map[string]any) (mcp.InputResponseMap, string, map[string]any) {
			return mcp.InputResponseMap{id: yes}, "", a
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := manualSession(t)
			path := filepath.Join(t.TempDir(), "touched")
			a := args("path", path)
			first, id := question(t, s, a)
			answers, state, b := tc.tamper(first.RequestState, id, a)
			res, err := tryRetry(t, s, b, answers, state)
			switch tc.outcome {
			case "invalid":
				var werr *jsonrpc.Error
				if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
					t.Fatalf("retry = %v, %v; want a -32602 error", res, err)
				}
				if exists(path) {
					t.Fatal("the command ran")
				}
				if rec := s.log.nthCall(t, "touch", 1); rec["decision"] != tc.code || rec["result"] != "refused" {
					t.Errorf("call log = %v, want decision %s, result refused", rec, tc.code)
				}
			case "asked":
				if err != nil {
					t.Fatalf("retry: %v", err)
				}
				again, againID := askedAgain(t, s, res, first.RequestState, tc.code, path)
				if res := retry(t, s, a, mcp.InputResponseMap{againID: yes}, again.RequestState); res.IsError || !exists(path) {
					t.Fatalf("answering the fresh question did not run: %s", text(res))
				}
			default:
				if err != nil {
					t.Fatalf("retry: %v", err)
				}
				refused(t, s, 1, res, tc.code, path, b["path"].(string))
				if strings.Contains(text(res), "approved") && !strings.Contains(text(res), "not") {
					t.Errorf("refusal reads like an approval: %s", text(res))
				}
			}
		})
	}
}

// Answers under ids the server did not ask are ignored, as the protocol
// has a server do with what it does not recognise: the answer to the
// question asked decides alone, and an approval under another id, however
// it reads, approves nothing.
func TestAnswersToQuestionsNotAskedAreIgnored(t *testing.T) {
	withUnasked := func(answers mcp.InputResponseMap) mcp.InputResponseMap {
		answers["unknown_extra_key"] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
		answers["approve-"+strings.Repeat("0", 32)] = yes
		return answers
	}
	s := manualSession(t)
	path := filepath.Join(t.TempDir(), "touched")
	a := args("path", path)

	first, id := question(t, s, a)
	declined := withUnasked(mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "decline"}})
	refused(t, s, 1, retry(t, s, a, declined, first.RequestState), "declined", path)

	second, id := question(t, s, a)
	approved := withUnasked(mcp.InputResponseMap{id: yes})
	if res := retry(t, s, a, approved, second.RequestState); res.IsError || res.NeedsInput() || !exists(path) {
		t.Fatalf("the answer to the question asked, beside unasked ones, did not run: %s", text(res))
	}
	if rec := s.log.nthCall(t, "touch", 2); rec["decision"] != "approved" {
		t.Errorf("call log = %v, want decision approved", rec)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	refused(t, s, 3, retry(t, s, a, approved, second.RequestState), "replayed", path)
}

// On 2026-07-28 a question goes out as the schema's InputRequiredResult:
// resultType, inputRequests and requestState (and _meta), and no content,
// which the SDK's own encoding wrote as null: a field the schema's
// InputRequiredResult does not define, with a value its CallToolResult
// cannot hold.
func TestAQuestionOnTheWireIsAnInputRequiredResult(t *testing.T) {
	messages := newLogBuffer()
	s := startStdio(t, client{protocol: modernProtocol, manual: true, messages: messages,
		elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server elicited directly on 2026-07-28")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}, fixtureBin)
	path := filepath.Join(t.TempDir(), "touched")
	a := args("path", path)
	first, id := question(t, s, a)

	var fields []string
	for line := range strings.Lines(messages.String()) {
		var msg struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if rest, ok := strings.CutPrefix(line, "read: "); ok && json.Unmarshal([]byte(rest), &msg) == nil && string(msg.Result["resultType"]) == `"input_required"` {
			delete(msg.Result, "_meta") // the SDK's serverInfo, which any result may carry
			fields = slices.Sorted(maps.Keys(msg.Result))
		}
	}
	if want := []string{"inputRequests", "requestState", "resultType"}; !slices.Equal(fields, want) {
		t.Fatalf("the question carries %q, want %q:\n%s", fields, want, messages.String())
	}
	// The client reads it as the question it is.
	if res := retry(t, s, a, mcp.InputResponseMap{id: yes}, first.RequestState); res.IsError || !exists(path) {
		t.Fatalf("answering the question did not run: %s", text(res))
	}
}
