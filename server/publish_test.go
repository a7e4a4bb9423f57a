package server

import (
	"context"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listChangedClient returns client options that report list-changed
// notifications, and a channel closed once a 2026-07-28 session's
// subscription is acknowledged (so a test does not publish before the
// server knows the client listens). Legacy sessions need no subscription;
// their channel is closed at once.
func listChangedClient(version string) (*mcp.ClientOptions, chan struct{}, chan struct{}) {
	changed := make(chan struct{}, 10)
	opts := &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}
	subscribed := make(chan struct{})
	if version < modernVersion {
		close(subscribed)
	}
	return opts, changed, subscribed
}

// watchAck installs a middleware on client that closes subscribed when the
// server acknowledges a subscription.
func watchAck(client *mcp.Client, subscribed chan struct{}) {
	var closed bool
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" && !closed {
				closed = true
				close(subscribed)
			}
			return next(ctx, method, req)
		}
	})
}

func TestPublishTellsClientsTheListChanged(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			b := newBarrier()
			s, logs := newServer(t, Config{}, customSet(t, echoTool(t)))
			opts, changed, subscribed := listChangedClient(version)
			client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
			if version >= modernVersion {
				watchAck(client, subscribed)
			}
			ct, st := mcp.NewInMemoryTransports()
			ss, err := s.mcp.Connect(t.Context(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			wait(t, subscribed, "the subscription to be acknowledged")

			diff := s.Publish(customSet(t, b.tool(t)))
			if strings.Join(diff.Added, ",") != "hold" || strings.Join(diff.Removed, ",") != "echo_json" {
				t.Errorf("diff = %+v, want hold added and echo_json removed", diff)
			}
			wait(t, changed, "notifications/tools/list_changed")

			tools := listTools(t, cs)
			if tools["hold"] == nil || tools["echo_json"] != nil {
				t.Errorf("after publishing, listed %v; want hold only", tools)
			}
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo_json"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("calling a withdrawn tool: err = %v, want unknown tool", err)
			}
			if len(logs.records("tool set published")) != 1 {
				t.Errorf("publishing was not logged:\n%s", logs)
			}
		})
	}
}

func TestPublishReRegistersChangedTools(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, nil)
	if a := listTools(t, cs)["deploy"].Annotations; *a.DestructiveHint != true {
		t.Fatalf("deploy starts destructive by default, got %+v", a)
	}
	s.Publish(fixtureSet(t, exposure.Policy{AdditiveTags: []string{"ops:prod"}}))
	// The list is read after Publish returned: registration is synchronous;
	// only the notification is debounced.
	if a := listTools(t, cs)["deploy"].Annotations; *a.DestructiveHint != false {
		t.Errorf("after republishing, deploy annotations = %+v, want additive", a)
	}
}

func TestCallsResolveToolsInTheCurrentSet(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, nil)
	// The SDK still has echo registered until the handler runs against
	// the new set; the server must look the name up at call time.
	s.tools.Publish(fixtureSet(t, exposure.Policy{Exclude: mustRegexps(t, "^echo$")}))
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"context": "t", "subject": "x"}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("calling a tool absent from the current set: err = %v, want unknown tool", err)
	}
}
