package server

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// echoTool is an in-process tool that returns its input.
func echoTool(t testing.TB) exposure.Tool {
	t.Helper()
	tool, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name:        "echo_json",
		Description: "Returns its arguments",
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"word": map[string]any{"type": "string"}},
			"additionalProperties": false,
		},
		Fn: func(_ context.Context, input json.RawMessage) (json.RawMessage, error) { return input, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// barrier backs an in-process tool whose calls report that they entered
// and then block until released (or cancelled). It records the highest
// number of calls that ran at once.
type barrier struct {
	entered chan struct{}
	release chan struct{}

	mu        sync.Mutex
	now, peak int
}

func newBarrier() *barrier {
	return &barrier{entered: make(chan struct{}, 100), release: make(chan struct{})}
}

func (b *barrier) max() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

func (b *barrier) enter() {
	b.mu.Lock()
	b.now++
	b.peak = max(b.peak, b.now)
	b.mu.Unlock()
	b.entered <- struct{}{}
}

func (b *barrier) leave() {
	b.mu.Lock()
	b.now--
	b.mu.Unlock()
}

func (b *barrier) tool(t *testing.T) exposure.Tool {
	t.Helper()
	tool, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name:        "hold",
		Description: "Blocks until the test releases it",
		InputSchema: map[string]any{"type": "object"},
		Fn: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			b.enter()
			defer b.leave()
			select {
			case <-b.release:
				return json.RawMessage(`{"released":true}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// bareTool implements Tool and nothing else: it cannot say whether it
// needs approval, so the server must refuse it.
type bareTool struct{ ran chan struct{} }

func (bareTool) Name() string                { return "bare" }
func (bareTool) Description() string         { return "A tool without capabilities" }
func (bareTool) ModelDescription() string    { return "A tool without capabilities" }
func (bareTool) InputSchema() map[string]any { return map[string]any{"type": "object"} }
func (bareTool) MCPExposable() bool          { return true }
func (bareTool) A2AExposable() bool          { return true }
func (b bareTool) Prepare(input json.RawMessage) (*exposure.Call, error) {
	return exposure.NewInProcessCall("bare", input, func(context.Context) (*exposure.Outcome, error) {
		close(b.ran)
		return &exposure.Outcome{Output: json.RawMessage(`{}`)}, nil
	})
}

// deferringTool answers that its result will arrive later.
type deferringTool struct{ bareTool }

func (deferringTool) Name() string           { return "later" }
func (deferringTool) NeedsConfirm() bool     { return false }
func (deferringTool) ConfirmTrigger() string { return "" }
func (deferringTool) Prepare(input json.RawMessage) (*exposure.Call, error) {
	return exposure.NewInProcessCall("later", input, func(context.Context) (*exposure.Outcome, error) {
		return &exposure.Outcome{Deferred: true}, nil
	})
}
