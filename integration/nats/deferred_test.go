package nats

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// maxDeferredListBytes is the goal for nats's deferred tools/list: at most
// 5 KB (5,000 bytes), against some 200 KB for the full list.
const maxDeferredListBytes = 5_000

// maxFullListBytes is the goal for nats's full tools/list, served without
// global flags: at most 215 KB (215,000 bytes), within 1.1 times the 195 KB
// the fisk-ai MCP server sends for the same tools without behaviour
// annotations.
const maxFullListBytes = 215_000

// listBytes returns the names of one tools/list page and the bytes of its
// "tools" array as the client read it off the wire.
func listBytes(t *testing.T, sb sandbox, args ...string) ([]string, int) {
	names, raw := listWire(t, sb, args...)
	return names, len(raw)
}

// listWire lists the tools of `fisk-mcp serve ARGS... nats` and returns
// their names and the "tools" array of the response, byte for byte.
func listWire(t *testing.T, sb sandbox, args ...string) ([]string, json.RawMessage) {
	t.Helper()
	messages := &testsupport.LogBuffer{}
	res, err := serveLogged(t, sb, messages, args...).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	for line := range strings.Lines(messages.String()) {
		var msg struct {
			Result struct {
				Tools json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if rest, ok := strings.CutPrefix(line, "read: "); ok && json.Unmarshal([]byte(rest), &msg) == nil && msg.Result.Tools != nil {
			return names, msg.Result.Tools
		}
	}
	t.Fatal("the client read no tools/list response")
	return nil, nil
}

func TestNATSIsDeferredByDefaultAndItsListIsSmall(t *testing.T) {
	deferred, deferredBytes := listBytes(t, newSandbox(t), natsPolicy...)
	full, fullBytes := listBytes(t, newSandbox(t), natsFullList...)
	t.Logf("nats tools/list: deferred %d tools, %d bytes; full %d tools, %d bytes", len(deferred), deferredBytes, len(full), fullBytes)
	if want := []string{"search_tools", "describe_tools", "call_read_only_tool", "call_tool"}; !slices.Equal(deferred, want) {
		t.Errorf("deferred list %v, want %v", deferred, want)
	}
	if deferredBytes > maxDeferredListBytes {
		t.Errorf("the deferred list takes %d bytes, over the goal of %d", deferredBytes, maxDeferredListBytes)
	}
	var metaBytes int
	for _, tool := range listTools(t, serve(t, newSandbox(t), natsFullList...)) {
		raw, _ := json.Marshal(tool.Meta)
		metaBytes += len(raw)
	}
	t.Logf("of the full list, the tools' _meta (searchHint, alwaysLoad) takes %d bytes", metaBytes)
	if len(full) != natsVisibleLeaves {
		t.Errorf("--defer never lists %d tools, want %d", len(full), natsVisibleLeaves)
	}
}

func TestNATSFullListIsWithinTheGoal(t *testing.T) {
	// The policy without --global-flag: the peer's list has no globals.
	names, raw := listWire(t, newSandbox(t), "--defer", "never", "--read-only-tag", "impact:ro", "--confirm-tag", "impact:rw")
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tools); err != nil || len(tools) != natsVisibleLeaves || len(names) != len(tools) {
		t.Fatalf("the full list has %d tools (%v), want %d", len(tools), err, natsVisibleLeaves)
	}
	// Where the bytes go: each field with its key, summed over the tools.
	fields := map[string]int{}
	for _, tool := range tools {
		for k, v := range tool {
			fields[k] += len(k) + 3 + len(v)
		}
	}
	t.Logf("nats full tools/list without globals: %d tools, %d bytes; by field: %v", len(tools), len(raw), fields)
	if len(raw) > maxFullListBytes {
		t.Errorf("the full list takes %d bytes, over the goal of %d", len(raw), maxFullListBytes)
	}
}

func TestNATSToolsAreFoundDescribedAndRunThroughTheExecutors(t *testing.T) {
	sb := newSandbox(t)
	s := serve(t, sb, natsPolicy...)

	_, found := call(t, s, "search_tools", map[string]any{"query": "delete a stream"})
	if !strings.Contains(found, "- stream_rm: ") || !strings.Contains(found, "needs a person's approval") {
		t.Errorf("searching for deleting a stream:\n%s", found)
	}

	full := listTools(t, serve(t, newSandbox(t), natsFullList...))
	res, described := call(t, s, "describe_tools", map[string]any{"names": []string{"stream_rm", "auth_nuid_gen"}})
	var got struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema any    `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got); err != nil || len(got.Tools) != 2 {
		t.Fatalf("describe_tools: %v\n%s", err, described)
	}
	for _, d := range got.Tools {
		a, _ := json.Marshal(d.InputSchema)
		b, _ := json.Marshal(full[d.Name].InputSchema)
		if string(a) != string(b) {
			t.Errorf("%s described with schema %s, listed with %s", d.Name, a, b)
		}
	}

	// The read-only executor runs a read-only tool as a direct call does.
	nuid := regexp.MustCompile(`^[0-9A-Za-z]{22}\n$`)
	direct, _ := call(t, s, "auth_nuid_gen", nil)
	viaRes, viaText := call(t, s, "call_read_only_tool", map[string]any{"name": "auth_nuid_gen"})
	d, v := ran(t, "auth_nuid_gen", direct), ran(t, "call_read_only_tool", viaRes)
	if viaRes.IsError || d.Command != v.Command || !nuid.MatchString(v.Output) {
		t.Errorf("call_read_only_tool auth_nuid_gen ran %q:\n%s\ndirectly %q", v.Command, viaText, d.Command)
	}
	_, badDirect := call(t, s, "auth_nuid_gen", map[string]any{"bogus": 1})
	_, badVia := call(t, s, "call_read_only_tool", map[string]any{"name": "auth_nuid_gen", "arguments": map[string]any{"bogus": 1}})
	if badDirect != badVia || !strings.Contains(badVia, "nothing ran") {
		t.Errorf("invalid arguments through the executor:\n%s\ndirectly:\n%s", badVia, badDirect)
	}

	// It refuses a tool that writes, and nothing runs: no context is saved.
	res, refused := call(t, s, "call_read_only_tool", map[string]any{"name": "context_add", "arguments": map[string]any{"name": "nope"}})
	if !res.IsError || !strings.Contains(refused, "not read-only") {
		t.Errorf("call_read_only_tool context_add:\n%s", refused)
	}
	if _, err := os.Stat(filepath.Join(sb.config, "nats", "context", "nope.json")); err == nil {
		t.Error("the refused context_add ran")
	}

	// The other executor keeps the gate: this client cannot approve.
	store := filepath.Join(sb.data, "nats", "nsc", "stores", "gated")
	res, gatedText := call(t, s, "call_tool", map[string]any{"name": "auth_operator_add", "arguments": map[string]any{"name": "gated"}})
	if !res.IsError || !strings.Contains(strings.ToLower(gatedText), "approval") {
		t.Errorf("call_tool auth_operator_add without a way to approve:\n%s", gatedText)
	}
	if _, err := os.Stat(store); err == nil {
		t.Errorf("the gated command ran through call_tool: %s exists", store)
	}

	// An unknown name answers with the closest served names.
	_, unknown := call(t, s, "call_tool", map[string]any{"name": "stream_delete"})
	if !strings.Contains(unknown, "did you mean") || !strings.Contains(unknown, "stream_rm") {
		t.Errorf("call_tool stream_delete:\n%s", unknown)
	}
}
