package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func panickingTool(t *testing.T) exposure.Tool {
	t.Helper()
	tool, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name:        "broken",
		Description: "Panics on every call",
		InputSchema: map[string]any{"type": "object"},
		Fn: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			var m map[string]int
			//lint:ignore SA5000 the nil map is the bug this tool stands for
			m["boom"]++ // a nil map: the kind of bug a caller-supplied tool has
			return nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func TestPanickingToolFailsItsCallAndTheServerKeepsServing(t *testing.T) {
	// One slot: the call after the panic runs only if the panic released it.
	s, logs := newServer(t, Config{Concurrency: 1}, customSet(t, panickingTool(t), echoTool(t)))
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, s, version, nil)

			res := call(t, cs, "broken", nil)

			if !res.IsError || !strings.HasPrefix(text(res), "internal error; the call failed") {
				t.Errorf("result = %q (isError %v), want an internal error", text(res), res.IsError)
			}
			if strings.Contains(text(res), "goroutine") || strings.Contains(text(res), "nil map") {
				t.Errorf("result %q shows the model the panic; it belongs in the log", text(res))
			}
			if after := call(t, cs, "echo_json", map[string]any{"word": "alive"}); after.IsError || !strings.Contains(text(after), "alive") {
				t.Errorf("the call after the panic = %q (isError %v), want it served", text(after), after.IsError)
			}
		})
	}
	panics := logs.records("tool call panicked")
	if len(panics) != len(protocolVersions) {
		t.Fatalf("%d panics logged, want %d:\n%s", len(panics), len(protocolVersions), logs)
	}
	if p := panics[0]; p["level"] != "ERROR" || p["tool"] != "broken" || !strings.Contains(p["panic"].(string), "nil map") || !strings.Contains(p["stack"].(string), "panic_test.go") {
		t.Errorf("panic record = %v, want an Error naming the tool, the panic and the stack through the tool", p)
	}
	if !loggedResult(logs, "broken", "panic") {
		t.Errorf("the call line does not record the panic:\n%s", logs)
	}
}
