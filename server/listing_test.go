package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/discovery"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkLister is a plain SDK server holding tools in full, with the SDK's
// own tools/list, and a client session of it: what the server's full list
// must be indistinguishable from.
func sdkLister(t *testing.T, pageSize int, tools []*mcp.Tool) *mcp.ClientSession {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk", Version: "1"}, &mcp.ServerOptions{PageSize: pageSize})
	for _, tool := range tools {
		srv.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// manyTools is a set of n in-process tools, each with its own schema.
func manyTools(t *testing.T, n int, describe func(i int) string) *exposure.ToolSet {
	t.Helper()
	tools := make([]exposure.Tool, n)
	for i := range tools {
		tool, err := exposure.NewCustomTool(exposure.CustomSpec{
			Name:        fmt.Sprintf("tool_%04d", i),
			Description: describe(i),
			InputSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{fmt.Sprintf("arg_%d", i): map[string]any{"type": "string"}},
			},
			Fn: func(_ context.Context, input json.RawMessage) (json.RawMessage, error) { return input, nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		tools[i] = tool
	}
	return customSet(t, tools...)
}

func encodeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The SDK holds every tool for dispatch only, so the server pages its full
// list itself: page by page, the same tools as the SDK's own list of the
// same descriptors, and a next page exactly where the SDK has one. The
// cursors are the server's own: each resumes after the name it was issued
// for, and one the server did not issue (the SDK's included) is invalid
// params, as the SDK refuses a cursor it cannot decode.
func TestAFullListIsPagedAsTheSDKPagesIt(t *testing.T) {
	const size = 3
	s, _ := newServer(t, Config{Defer: DeferNever}, fixtureSet(t, exposure.Policy{}))
	l := s.listing.Load()
	if len(l.tools) <= 2*size {
		t.Fatalf("the fixture lists %d tools; the test needs more than two pages", len(l.tools))
	}
	sdk := sdkLister(t, size, l.tools)
	var sdkCursor string
	for cursor, sdkAt := "", ""; ; {
		want, err := sdk.ListTools(t.Context(), &mcp.ListToolsParams{Cursor: sdkAt})
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.page(cursor, size)
		if err != nil {
			t.Fatal(err)
		}
		if (got.NextCursor == "") != (want.NextCursor == "") || encodeJSON(t, got.Tools) != encodeJSON(t, want.Tools) {
			t.Errorf("page after %q: listed %v (next %q), the SDK %v (next %q)", cursor, toolNames(got.Tools), got.NextCursor, toolNames(want.Tools), want.NextCursor)
		}
		if got.NextCursor == "" || want.NextCursor == "" {
			break
		}
		cursor, sdkAt = got.NextCursor, want.NextCursor
		sdkCursor = sdkAt
	}
	names := toolNames(l.tools)
	for _, after := range []string{"a", names[1], "~"} {
		got, err := l.page(encodeCursor(after), len(names))
		var want []string
		for _, n := range names {
			if n > after {
				want = append(want, n)
			}
		}
		if err != nil || !slices.Equal(toolNames(got.Tools), want) {
			t.Errorf("cursor after %q: listed %v, %v; want %v", after, toolNames(got.Tools), err, want)
		}
	}
	bad := []string{
		"not base64!",
		"bm90IGdvYg==",
		encodeCursor("x") + "=",
		base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix)),
		base64.RawURLEncoding.EncodeToString([]byte("tools.v0:" + names[1])),
		strings.Repeat("A", maxCursorBytes+4),
		sdkCursor,
	}
	for _, cursor := range bad {
		_, err := l.page(cursor, size)
		var got *jsonrpc.Error
		if !errors.As(err, &got) || got.Code != jsonrpc.CodeInvalidParams || !strings.Contains(got.Message, "list the tools again") {
			t.Errorf("cursor %q: refused with %v, want invalid params saying to list again", cursor, err)
		}
	}
}

func toolNames(tools []*mcp.Tool) []string {
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	return names
}

// Past the SDK's page size a client lists the full set in pages, as it
// would from the SDK's own list, and gets every tool exactly once.
func TestAClientListsAFullSetPastOnePage(t *testing.T) {
	set := manyTools(t, listPageSize+1, func(i int) string { return fmt.Sprintf("Tool number %d", i) })
	s, _ := newServer(t, Config{Defer: DeferNever}, set)
	cs := connect(t, s, modernVersion, nil)
	first, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) != listPageSize || first.NextCursor == "" {
		t.Fatalf("first page: %d tools, next %q; want %d and a cursor", len(first.Tools), first.NextCursor, listPageSize)
	}
	var names []string
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	var want []string
	for i := range listPageSize + 1 {
		want = append(want, fmt.Sprintf("tool_%04d", i))
	}
	if !slices.Equal(names, want) {
		t.Errorf("the client listed %d tools, want each of the %d once, by name:\n got %v\nwant %v", len(names), len(want), names, want)
	}
}

// A republished set is registered again only where a registration or a
// listed descriptor changed, and each re-registration is what has the SDK
// send list_changed: a description changed in a full list is re-registered
// though its dispatch registration is the same; an unchanged set, or a
// change the deferred list does not show, is not.
func TestRepublishingRegistersOnlyWhatTheListShowsChanged(t *testing.T) {
	describe := func(changed int) func(int) string {
		return func(i int) string {
			if i == changed {
				return "Changed"
			}
			return fmt.Sprintf("Tool number %d", i)
		}
	}
	for _, tc := range []struct {
		mode DeferMode
		want []string
	}{
		{DeferNever, []string{"tool_0001"}},
		{DeferAlways, nil},
	} {
		s, _ := newServer(t, Config{Defer: tc.mode}, manyTools(t, 3, describe(-1)))
		same := s.registrations(manyTools(t, 3, describe(-1)), tc.mode == DeferAlways)
		if tc.mode == DeferAlways {
			for _, name := range discovery.Names() {
				same[name] = s.added[name]
			}
		}
		if add := s.changed(same); len(add) != 0 {
			t.Errorf("%s: the same set again re-registers %v", tc.mode, registeredNames(add))
		}
		other := s.registrations(manyTools(t, 3, describe(1)), tc.mode == DeferAlways)
		for name := range same {
			if _, ok := other[name]; !ok {
				other[name] = same[name]
			}
		}
		if got := registeredNames(s.changed(other)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: a changed description re-registers %v, want %v", tc.mode, got, tc.want)
		}
	}
}

func registeredNames(regs []registration) []string {
	var names []string
	for _, r := range regs {
		names = append(names, r.tool.Name)
	}
	return names
}

// In a full list, a changed description alone reaches the clients: they
// are told the list changed and list the new descriptor.
func TestPublishTellsClientsOfAChangedDescription(t *testing.T) {
	describe := func(word string) func(int) string { return func(int) string { return word } }
	s, _ := newServer(t, Config{Defer: DeferNever}, manyTools(t, 2, describe("Before")))
	opts, changed, subscribed := listChangedClient(legacyVersion)
	cs := connect(t, s, legacyVersion, opts)
	wait(t, subscribed, "the session to listen")
	s.Publish(manyTools(t, 2, describe("After")))
	wait(t, changed, "notifications/tools/list_changed")
	for name, tool := range listTools(t, cs) {
		if tool.Description != "After" {
			t.Errorf("%s is listed as %q, want the republished description", name, tool.Description)
		}
	}
}

// A published set encodes each listed tool once, when it is registered:
// tools/list sends those bytes and encodes nothing itself, in either mode.
func TestAPublishedListingHoldsTheWireEncodingOfEveryListedTool(t *testing.T) {
	for _, mode := range []DeferMode{DeferNever, DeferAlways} {
		s, _ := newServer(t, Config{Defer: mode}, fixtureSet(t, exposure.Policy{}))
		l := s.listing.Load()
		if len(l.tools) == 0 {
			t.Fatalf("%s: nothing listed", mode)
		}
		for _, tool := range l.tools {
			want, err := encodeTool(tool)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := l.encoded[tool]; !ok || string(got) != string(want) {
				t.Errorf("%s %s: kept encoding %q (present: %v), want %s", mode, tool.Name, got, ok, want)
			}
		}
	}
}
