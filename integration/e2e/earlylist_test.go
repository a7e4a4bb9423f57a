package e2e

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/listcache"
	"github.com/fisk-mcp/fisk-mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listedBytes is the list a client receives, as fisk-mcp encodes it.
func listedBytes(t *testing.T, cs *mcp.ClientSession) []byte {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	b, err := server.EncodeTools(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keptLists returns the store of lists in the cache directory cache, and
// the key of the one record it holds.
func keptLists(t *testing.T, cache string) (listcache.Store, listcache.Key) {
	t.Helper()
	store := listcache.Store{Dir: filepath.Join(cache, "fisk-mcp", "lists")}
	entries, err := os.ReadDir(store.Dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("the cache holds %v (%v), want one kept list", entries, err)
	}
	var k listcache.Key
	if n, err := hex.Decode(k[:], []byte(entries[0].Name())); err != nil || n != len(k) {
		t.Fatalf("a kept list is named %q", entries[0].Name())
	}
	return store, k
}

// TestASecondStartAnswersWithTheListTheFirstKept starts fisk-mcp three
// times over the fixture, as a client restarts it. The first start keeps
// its list. The second finds it: to prove that the list it sends first is
// the kept one, the test alters the kept list's text beforehand; the
// server then tells the client the list changed and lists the set's own,
// identical to the first start's, and its calls run on that set. The
// third finds the list the second kept again, and lists it unchanged.
// A fourth calls a tool before listing any: the call has the set built
// at once. A start with another command line keeps a list of its own.
func TestASecondStartAnswersWithTheListTheFirstKept(t *testing.T) {
	cache := t.TempDir()
	changed := make(chan struct{}, 4)
	c := client{protocol: legacyProtocol, env: []string{"XDG_CACHE_HOME=" + cache}, listChanged: func() { changed <- struct{}{} }}

	first := startStdio(t, c, fixtureBin)
	want := listedBytes(t, first.cs)
	if err := first.cs.Close(); err != nil { // the list is kept by the time it exits
		t.Fatal(err)
	}
	store, key := keptLists(t, cache)
	kept := store.Load(key)
	if kept == nil || kept.Deferred || len(kept.Listed) == 0 {
		t.Fatalf("the first start kept %v", kept)
	}
	altered := 0
	for i, tool := range kept.Listed {
		if tool.Name == "echo" {
			kept.Listed[i].Wire = bytes.Replace(tool.Wire, []byte(`"description":"`), []byte(`"description":"KEPT `), 1)
			altered++
		}
	}
	if altered != 1 {
		t.Fatalf("the kept list has %d tools named echo", altered)
	}
	if err := store.Save(key, kept); err != nil {
		t.Fatal(err)
	}

	second := startStdio(t, c, fixtureBin)
	if got := listedBytes(t, second.cs); !bytes.Contains(got, []byte(`"description":"KEPT `)) {
		t.Fatalf("the second start's first list is not the kept one:\n%.400s", got)
	}
	await(t, changed, "list_changed once the second start's set is in force")
	if got := listedBytes(t, second.cs); !bytes.Equal(got, want) {
		t.Errorf("the second start lists, once its set is built,\n%s\nwant the first start's\n%s", got, want)
	}
	res := second.call(t, "echo", args("context", "e2e", "subject", "kept"))
	if res.IsError || !strings.Contains(text(res), "kept") {
		t.Errorf("echo on the second start got %q", text(res))
	}
	second.log.waitRecord(t, "the second start's completion", func(r map[string]any) bool {
		return r["msg"] == "tool set completed" && r["early_list_kept"] == false
	})
	if err := second.cs.Close(); err != nil {
		t.Fatal(err)
	}

	third := startStdio(t, c, fixtureBin)
	if got := listedBytes(t, third.cs); !bytes.Equal(got, want) {
		t.Errorf("the third start lists\n%s\nwant\n%s", got, want)
	}
	third.log.waitRecord(t, "the third start's completion", func(r map[string]any) bool {
		return r["msg"] == "tool set completed" && r["early_list_kept"] == true
	})
	if err := third.cs.Close(); err != nil {
		t.Fatal(err)
	}

	// A client that calls before it ever lists: the call has the set
	// built at once, and runs on it.
	caller := startStdio(t, c, fixtureBin)
	if res := caller.call(t, "echo", args("context", "e2e", "subject", "unlisted")); res.IsError || !strings.Contains(text(res), "unlisted") {
		t.Errorf("a call before any list got %q", text(res))
	}
	caller.log.waitRecord(t, "the reason the set was built", func(r map[string]any) bool {
		return r["msg"] == "building the tool set behind the kept list" && r["because"] == "a call waits for it"
	})
	if err := caller.cs.Close(); err != nil {
		t.Fatal(err)
	}

	other := startStdio(t, c, "--exclude", "^echo$", fixtureBin)
	if got := listedBytes(t, other.cs); bytes.Equal(got, want) {
		t.Error("a start excluding echo listed what the others did")
	}
	if err := other.cs.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(store.Dir); len(entries) != 2 {
		t.Errorf("the cache holds %d lists after starts with two command lines, want 2", len(entries))
	}
}

// TestAKeptListTheServerCannotServeIsBuiltAnew: a record whole by its
// checksum but that this server did not write (a registration that does
// not decode) is not served; the start builds its list as a first start
// does, says why at debug, and keeps its own list in its place.
func TestAKeptListTheServerCannotServeIsBuiltAnew(t *testing.T) {
	cache := t.TempDir()
	c := client{protocol: legacyProtocol, env: []string{"XDG_CACHE_HOME=" + cache}}
	first := startStdio(t, c, fixtureBin)
	want := listedBytes(t, first.cs)
	if err := first.cs.Close(); err != nil {
		t.Fatal(err)
	}
	store, key := keptLists(t, cache)
	bad := store.Load(key)
	bad.Registered = append(bad.Registered, server.EarlyTool{Name: "zzz", Wire: []byte(`{"name":"other"}`)})
	if err := store.Save(key, bad); err != nil {
		t.Fatal(err)
	}

	second := startStdio(t, c, fixtureBin)
	if got := listedBytes(t, second.cs); !bytes.Equal(got, want) {
		t.Errorf("the start after an unusable kept list lists\n%s\nwant\n%s", got, want)
	}
	second.log.waitRecord(t, "the reason the kept list was not served", func(r map[string]any) bool {
		return r["msg"] == "the list kept by an earlier start cannot be served; building it"
	})
	if err := second.cs.Close(); err != nil {
		t.Fatal(err)
	}
	if kept := store.Load(key); kept == nil || len(kept.Registered) != len(bad.Registered)-1 {
		t.Error("the unusable list was not replaced by the start's own")
	}
}
