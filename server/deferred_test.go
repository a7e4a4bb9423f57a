package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/discovery"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deferredList is what a deferred fixture lists: the discovery tools in
// their fixed order, then deploy, the fixture's one ai:no_defer command.
var deferredList = []string{"search_tools", "describe_tools", "call_read_only_tool", "call_tool", "deploy"}

// listed returns the names of one tools/list page, in order, and its JSON.
func listed(t *testing.T, cs *mcp.ClientSession) ([]string, string) {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.NextCursor != "" {
		t.Errorf("the list has a next page (%q)", res.NextCursor)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	raw, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return names, string(raw)
}

func TestDeferredListIsTheDiscoveryToolsAndTheNoDeferToolsForEverySession(t *testing.T) {
	s, _ := newServer(t, Config{Defer: DeferAlways}, fixtureSet(t, exposure.Policy{}))
	var first string
	for _, version := range protocolVersions {
		for range 2 {
			cs := connect(t, s, version, nil)
			names, raw := listed(t, cs)
			if !slices.Equal(names, deferredList) {
				t.Fatalf("%s: listed %v, want %v", version, names, deferredList)
			}
			if first == "" {
				first = raw
			} else if raw != first {
				t.Errorf("%s: the deferred list differs between sessions:\n%s\n%s", version, raw, first)
			}
		}
	}
	tools := listTools(t, connect(t, s, modernVersion, nil))
	for name, tool := range tools {
		if tool.Meta[discovery.MetaAlwaysLoad] != true {
			t.Errorf("%s lacks _meta %s: %v", name, discovery.MetaAlwaysLoad, tool.Meta)
		}
	}
	ro, any := tools["call_read_only_tool"].Annotations, tools["call_tool"].Annotations
	if !ro.ReadOnlyHint || !ro.IdempotentHint || ro.DestructiveHint != nil && *ro.DestructiveHint {
		t.Errorf("call_read_only_tool annotations %+v, want read-only and idempotent", ro)
	}
	if any.ReadOnlyHint || any.IdempotentHint || !*any.DestructiveHint || !*any.OpenWorldHint {
		t.Errorf("call_tool annotations %+v, want the conservative defaults", any)
	}
}

func TestFullListCarriesTheVendorMetaKeys(t *testing.T) {
	s, _ := newServer(t, Config{}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, nil)
	tools := listTools(t, cs)
	if tools["search_tools"] != nil || tools["echo"] == nil {
		t.Fatalf("a set under the threshold is deferred: %v", tools)
	}
	for name, tool := range tools {
		hint, _ := tool.Meta[discovery.MetaSearchHint].(string)
		if len(hint) > discovery.MaxSearchHint {
			t.Errorf("%s: searchHint %q is over %d bytes", name, hint, discovery.MaxSearchHint)
		}
		said := strings.FieldsFunc(strings.ToLower(tool.Name+" "+tool.Title+" "+tool.Description), func(r rune) bool {
			return r != ':' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})
		for _, w := range strings.Fields(hint) {
			if slices.Contains(said, strings.ToLower(w)) {
				t.Errorf("%s: searchHint %q repeats %q, which the name, title or description says", name, hint, w)
			}
		}
		if got, want := tool.Meta[discovery.MetaAlwaysLoad] == true, name == "deploy"; got != want {
			t.Errorf("%s: alwaysLoad %v, want %v (only ai:no_defer tools)", name, got, want)
		}
	}
	// The application's aliases are the words a search could not match
	// otherwise; rm is too short to search by, and the title and tags are
	// in the name and description already.
	for name, want := range map[string]string{"admin_user_delete": "member expel", "admin_user_add": "member", "echo": ""} {
		if hint, _ := tools[name].Meta[discovery.MetaSearchHint].(string); hint != want {
			t.Errorf("%s searchHint = %q, want %q", name, hint, want)
		}
	}
	if _, ok := tools["echo"].Meta[discovery.MetaSearchHint]; ok {
		t.Error("echo, with no word to add, carries a searchHint")
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "x"}}); err == nil {
		t.Error("search_tools is callable while the list is not deferred")
	}
}

func TestAutoDefersAboveTheThresholdAndFlipsOnPublish(t *testing.T) {
	changed := make(chan struct{}, 16)
	s, logs := newServer(t, Config{DeferThreshold: 5}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, legacyVersion, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	if names, _ := listed(t, cs); !slices.Equal(names, deferredList) {
		t.Fatalf("the fixture's set is over the threshold of 5, yet listed %v", names)
	}

	s.Publish(fixtureSet(t, exposure.Policy{Include: mustRegexps(t, "^(echo|deploy|touch)$")}))
	wait(t, changed, "list_changed after the set shrank")
	if names, _ := listed(t, cs); !slices.Equal(names, []string{"deploy", "echo", "touch"}) {
		t.Fatalf("a set of 3 under a threshold of 5 listed %v", names)
	}

	s.Publish(fixtureSet(t, exposure.Policy{}))
	wait(t, changed, "list_changed after the set grew")
	if names, _ := listed(t, cs); !slices.Equal(names, deferredList) {
		t.Fatalf("after growing again: %v", names)
	}
	var deferred []any
	for _, r := range logs.records("tool set published") {
		deferred = append(deferred, r["deferred"])
	}
	if !slices.Equal(deferred, []any{false, true}) {
		t.Errorf("published lines say deferred %v, want [false true]", deferred)
	}
}

func TestSearchAndDescribeKnowOnlyTheServedTools(t *testing.T) {
	s, _ := newServer(t, Config{Defer: DeferAlways}, fixtureSet(t, exposure.Policy{Exclude: mustRegexps(t, "^exit$")}))
	cs := connect(t, s, modernVersion, nil)

	res := call(t, cs, "search_tools", map[string]any{"query": "remove a user"})
	if lines := strings.Split(text(res), "\n"); res.IsError || len(lines) < 2 || !strings.HasPrefix(lines[1], "- admin_user_delete: Delete a user (destructive") {
		t.Errorf("searching for removing a user:\n%s", text(res))
	}
	if res := call(t, cs, "search_tools", map[string]any{"query": "create a file", "limit": 1}); !strings.Contains(text(res), "- touch: Create a file, proving the command ran (writes, needs a person's approval)") {
		t.Errorf("searching for touch:\n%s", text(res))
	}
	// Denied (admin_purge), hidden (internal_debug_dump, secret) and
	// excluded (exit) tools are never found, described nor run.
	for _, q := range []string{"purge erase every record", "dump internal state debugging", "hidden leaf secret", "exit with the given code"} {
		res := call(t, cs, "search_tools", map[string]any{"query": q, "limit": 50})
		for _, name := range []string{"admin_purge", "internal_debug_dump", "secret", "exit"} {
			if strings.Contains(text(res), "- "+name+":") {
				t.Errorf("search %q found %s:\n%s", q, name, text(res))
			}
		}
	}
	res = call(t, cs, "describe_tools", map[string]any{"names": []string{"admin_purge", "internal_debug_dump", "secret", "exit"}})
	if !res.IsError || strings.Contains(text(res), `"inputSchema"`) {
		t.Errorf("describing tools that are not served: %s", text(res))
	}
	for _, name := range []string{"admin_purge", "internal_debug_dump", "secret", "exit"} {
		res := call(t, cs, "call_tool", map[string]any{"name": name, "arguments": map[string]any{"context": "x", "code": 0}})
		if !res.IsError || !strings.Contains(text(res), "unknown tool") {
			t.Errorf("call_tool %s: %s", name, text(res))
		}
	}

	full := listTools(t, connect(t, mustServer(t, Config{Defer: DeferNever}), modernVersion, nil))
	res = call(t, cs, "describe_tools", map[string]any{"names": []string{"echo", "touch"}})
	var got struct {
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"inputSchema"`
			Gated       bool           `json:"gated"`
			CallWith    string         `json:"call_with"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(text(res)), &got); err != nil || len(got.Tools) != 2 {
		t.Fatalf("describe_tools: %v\n%s", err, text(res))
	}
	for _, d := range got.Tools {
		want, _ := json.Marshal(full[d.Name].InputSchema)
		schema, _ := json.Marshal(d.InputSchema)
		if string(schema) != string(want) || d.Description != full[d.Name].Description {
			t.Errorf("%s described as %s, listed in full as %s", d.Name, schema, want)
		}
	}
	if got.Tools[0].CallWith != "call_read_only_tool" || got.Tools[0].Gated || got.Tools[1].CallWith != "call_tool" || !got.Tools[1].Gated {
		t.Errorf("describe_tools says %+v", got.Tools)
	}
}

func mustServer(t *testing.T, cfg Config) *Server {
	s, _ := newServer(t, cfg, fixtureSet(t, exposure.Policy{}))
	return s
}

func TestUnknownNamesAnswerWithTheClosestServedNames(t *testing.T) {
	for _, mode := range []DeferMode{DeferNever, DeferAlways} {
		t.Run(string(mode), func(t *testing.T) {
			s, logs := newServer(t, Config{Defer: mode}, fixtureSet(t, exposure.Policy{}))
			cs := connect(t, s, modernVersion, nil)
			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ehco", Arguments: map[string]any{}})
			if err == nil || !strings.Contains(err.Error(), `unknown tool "ehco"; did you mean echo`) {
				t.Errorf("direct call of ehco: %v", err)
			}
			if rec := logs.records("tool call"); len(rec) != 1 || rec[0]["tool"] != "ehco" || rec[0]["result"] != "unknown_tool" {
				t.Errorf("call lines %v, want one unknown_tool line", rec)
			}
			if mode != DeferAlways {
				return
			}
			res := call(t, cs, "call_read_only_tool", map[string]any{"name": "admin_user_remove", "arguments": map[string]any{}})
			if !res.IsError || !strings.Contains(text(res), "did you mean admin_user_") {
				t.Errorf("executor call of admin_user_remove: %s", text(res))
			}
		})
	}
}

// An answer repeats what the caller gave (search_tools's query, an unknown
// tool's name or argument) only in part when it is long, and quoted, so a
// pasted wall of text or a control character does not come back to the
// model whole or raw; the search still finds by the query's words.
func TestAnswersRepeatWhatTheCallerGaveOnlyInPart(t *testing.T) {
	s, _ := newServer(t, Config{Defer: DeferAlways}, fixtureSet(t, exposure.Policy{}))
	cs := connect(t, s, modernVersion, nil)
	long := "remove a user " + strings.Repeat("and then some more words é ", 400) + "\x1b[31mred"
	res := call(t, cs, "search_tools", map[string]any{"query": long})
	got := text(res)
	first, _, _ := strings.Cut(got, "\n")
	if res.IsError || len(first) > echo.Max+200 || !strings.Contains(first, `"remove a user and then`) || !strings.Contains(first, `…, best first`) {
		t.Errorf("the answer's first line (%d bytes) does not repeat the query in part: %.300q", len(first), first)
	}
	if strings.ContainsRune(got, '\x1b') || !utf8.ValidString(got) {
		t.Errorf("the answer carries a raw control character or broken UTF-8: %.300q", got)
	}
	if !strings.Contains(got, "- admin_user_delete:") {
		t.Errorf("the long query did not find its tool:\n%s", got)
	}
	for _, q := range []string{"\x1b]0;title\x07zzzz-no-such-thing", strings.Repeat("qqqq ", 300)} {
		res := call(t, cs, "search_tools", map[string]any{"query": q})
		if got := text(res); strings.ContainsRune(got, '\x1b') || len(got) > echo.Max+300 {
			t.Errorf("no match for %.40q: %d bytes, %.300q", q, len(got), got)
		}
		// An unknown tool's name is repeated the same way, by an
		// executor and by a direct call.
		res = call(t, cs, "call_tool", map[string]any{"name": q + "x", "arguments": map[string]any{}})
		if got := text(res); !res.IsError || strings.ContainsRune(got, '\x1b') || len(got) > echo.Max+300 || !strings.Contains(got, "unknown tool") {
			t.Errorf("call_tool of %.40q: %d bytes, %.300q", q, len(got), got)
		}
		// So are an executor's unknown argument, describe_tools's unknown
		// name and a discovery tool's unknown argument.
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"call_tool", map[string]any{"name": "echo", q: 1}},
			{"describe_tools", map[string]any{"names": []string{q}}},
			{"search_tools", map[string]any{"query": "list", q: 1}},
		} {
			res := call(t, cs, c.tool, c.args)
			if got := text(res); !res.IsError || strings.ContainsRune(got, '\x1b') || len(got) > 2*echo.Max+300 {
				t.Errorf("%s with %.40q: %d bytes, %.300q", c.tool, q, len(got), got)
			}
		}
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: q + "x", Arguments: map[string]any{}})
		if err == nil || strings.ContainsRune(err.Error(), '\x1b') || len(err.Error()) > echo.Max+400 {
			t.Errorf("calling %.40q directly: %v", q, err)
		}
	}
}

// search_tools's description follows the set: a published set that serves
// other tools reaches the clients as a changed list.
func TestPublishTellsClientsWhatADeferredSetNowServes(t *testing.T) {
	s, _ := newServer(t, Config{Defer: DeferAlways}, fixtureSet(t, exposure.Policy{}))
	opts, changed, subscribed := listChangedClient(legacyVersion)
	cs := connect(t, s, legacyVersion, opts)
	wait(t, subscribed, "the session to listen")
	before := listTools(t, cs)[discovery.SearchTools].Description

	s.Publish(fixtureSet(t, exposure.Policy{Include: mustRegexps(t, "^(echo|deploy|touch)$")}))
	wait(t, changed, "notifications/tools/list_changed")
	after := listTools(t, cs)[discovery.SearchTools].Description
	if after == before || !strings.Contains(after, ", 3 tools: ") {
		t.Errorf("after publishing 3 of the fixture's tools, search_tools says\n%q\n(before: %q)", after, before)
	}
}
