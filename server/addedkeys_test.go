package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// wait_for_previous, which Gemini CLI adds to every call, reaches a tool
// that declares an argument of that name as sent, and is removed from the
// call of a tool that does not, which then sees its own arguments only.
func TestWaitForPreviousReachesOnlyAToolThatDeclaresIt(t *testing.T) {
	declaring, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name:        "waits",
		Description: "Returns its arguments, one of which is wait_for_previous",
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"wait_for_previous": map[string]any{"type": "boolean"}},
			"additionalProperties": false,
		},
		Fn: func(_ context.Context, input json.RawMessage) (json.RawMessage, error) { return input, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newServer(t, Config{}, customSet(t, declaring, echoTool(t)))
	cs := connect(t, s, modernVersion, nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"waits", map[string]any{"wait_for_previous": true}, `{"wait_for_previous":true}`},
		{"echo_json", map[string]any{"word": "hi", "wait_for_previous": true}, `{"word":"hi"}`},
	} {
		res := call(t, cs, tc.tool, tc.args)
		if got, _ := json.Marshal(res.StructuredContent); res.IsError || string(got) != tc.want {
			t.Errorf("%s %v: %s (isError %v), want %s", tc.tool, tc.args, got, res.IsError, tc.want)
		}
	}
}
