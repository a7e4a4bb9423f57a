package server

import (
	"context"
	"encoding/json"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestConcurrentlyCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 230} {
		calls := make([]atomic.Int32, n)
		concurrently(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n=%d: f(%d) called %d times, want once", n, i, c)
			}
		}
	}
}

func TestConcurrentlyRaisesAPanicInTheCaller(t *testing.T) {
	defer func() {
		if p := recover(); p != "bad descriptor" {
			t.Errorf("recovered %v, want the panic of f", p)
		}
	}()
	concurrently(100, func(i int) {
		if i == 42 {
			panic("bad descriptor")
		}
	})
	t.Error("concurrently returned after f panicked")
}

// Every tool is registered with the SDK for its calls only, in a deferred
// list and in a full one; the descriptor a list shows is the server's.
func TestDeferredToolsAreRegisteredForDispatchOnly(t *testing.T) {
	set := fixtureSet(t, exposure.Policy{})
	for _, mode := range []DeferMode{DeferAlways, DeferNever} {
		s, _ := newServer(t, Config{Defer: mode}, set)
		for _, tool := range set.Tools() {
			if !tool.MCPExposable() {
				continue
			}
			if got := s.added[tool.Name()].tool; !reflect.DeepEqual(got, dispatchDescriptor(tool)) || !forDispatch(got) {
				t.Errorf("%s: %s registered %+v, want the dispatch registration", mode, tool.Name(), got)
			}
			got, _ := json.Marshal(s.added[tool.Name()].listed)
			want, _ := json.Marshal(descriptor(tool, false))
			if mode == DeferAlways && !exposure.NoDefer(tool) {
				want = []byte("null")
			}
			if string(got) != string(want) {
				t.Errorf("%s: %s listed as %s, want %s", mode, tool.Name(), got, want)
			}
		}
	}
}

// The SDK checks a call's HTTP headers against the x-mcp-header names of
// the registered schema, so a tool naming one keeps its schema with the
// SDK even when the list leaves it out.
func TestAToolNamingAnHTTPHeaderIsRegisteredWithItsSchema(t *testing.T) {
	tool, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name:        "regional",
		Description: "Takes its region from a header too",
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}},
		},
		Fn: func(_ context.Context, input json.RawMessage) (json.RawMessage, error) { return input, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []DeferMode{DeferAlways, DeferNever} {
		s, _ := newServer(t, Config{Defer: mode}, customSet(t, tool))
		got, _ := json.Marshal(s.added["regional"].tool)
		if want, _ := json.Marshal(descriptor(tool, false)); string(got) != string(want) {
			t.Errorf("%s: registered %s, want the whole descriptor %s", mode, got, want)
		}
	}
}

// A dispatch registration's schema is one AddTool accepts and that refuses
// to encode: neither AddTool nor the header check of an HTTP call decodes
// it, and the SDK can never list it in the place of a tool's own.
func TestADispatchRegistrationIsAcceptedAndNeverEncoded(t *testing.T) {
	d := dispatchDescriptor(echoTool(t))
	if b, err := json.Marshal(d); err == nil {
		t.Errorf("a dispatch registration encodes, as %s", b)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk", Version: "1"}, nil)
	srv.AddTool(d, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
}
