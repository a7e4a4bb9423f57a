package e2e

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// A model that found and described a tool before a reload withdrew it can
// neither find, describe nor run it afterwards, through any executor.
func TestToolWithdrawnBetweenSearchAndCallIsNeitherFoundNorRun(t *testing.T) {
	dir := t.TempDir()
	app := installApp(t, dir, "tool", syntheticApp(3))
	s := startStdio(t, client{protocol: legacyProtocol}, "--watch", "--defer", "always", app)
	const gone = "group0000_cmd0002"
	if res := s.call(t, "search_tools", map[string]any{"query": "Generated command 2"}); !strings.Contains(text(res), gone) {
		t.Fatalf("search before the reload: %s", text(res))
	}
	if res := s.call(t, "describe_tools", map[string]any{"names": []string{gone}}); res.IsError {
		t.Fatalf("describe before the reload: %s", text(res))
	}

	installApp(t, dir, "tool", syntheticApp(2))
	s.published(t)
	if res := s.call(t, "search_tools", map[string]any{"query": "Generated command 2"}); strings.Contains(text(res), gone) {
		t.Errorf("search after the reload finds the withdrawn tool: %s", text(res))
	}
	if res := s.call(t, "describe_tools", map[string]any{"names": []string{gone}}); !res.IsError || strings.Contains(text(res), "inputSchema") {
		t.Errorf("describe after the reload: %s", text(res))
	}
	for _, executor := range []string{"call_tool", "call_read_only_tool"} {
		if res := s.call(t, executor, map[string]any{"name": gone, "arguments": args("name", "x")}); !res.IsError {
			t.Errorf("%s ran the withdrawn tool: %s", executor, text(res))
		}
	}
	for _, r := range s.log.finalCalls(gone) {
		if r["result"] != "unknown_tool" {
			t.Errorf("a call of the withdrawn tool was not refused as unknown: %v", r)
		}
	}
}

// A storm of SIGHUPs reloads without piling reloads up: each is published
// or coalesced, the server keeps serving the same list throughout, and it
// shuts down cleanly afterwards.
func TestSIGHUPStormKeepsServingTheSameList(t *testing.T) {
	dir := t.TempDir()
	app := installApp(t, dir, "tool", syntheticApp(3))
	s := startStdio(t, client{protocol: legacyProtocol}, "--watch", app)
	s.log.waitRecord(t, "for the watcher", func(r map[string]any) bool {
		return strings.HasPrefix(fmt.Sprint(r["msg"]), "watching the apps")
	})
	want := names(t, s.cs)
	const storm = 200
	for range storm {
		if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
	s.log.waitRecord(t, "for a SIGHUP reload", func(r map[string]any) bool { return r["msg"] == "tool set published" })
	for range 20 {
		if got := names(t, s.cs); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("listed %v during the storm, want %v", got, want)
		}
	}
	var reloads, published int
	for _, r := range s.log.records() {
		switch r["msg"] {
		case "reloading tools on SIGHUP":
			reloads++
		case "tool set published":
			published++
		case "reload failed; the previous tool set stays published":
			t.Errorf("a SIGHUP reload failed: %v", r)
		}
	}
	if reloads > storm || published > reloads {
		t.Errorf("%d SIGHUPs: %d reloads, %d published", storm, reloads, published)
	}
}
