package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An operator's file of requests teaches search_tools the words the CLI's
// users say: a request only the file says finds its command, first,
// through the built binary and the SDK client; requests given for a denied,
// a hidden or a misspelt command find nothing, and the log names them.
func TestSearchRequestsFileFindsCommandsInTheGivenWords(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "requests.yaml")
	if err := os.WriteFile(file, []byte(`application: fixture
commands:
  admin user add:
    - welcome the zebrafish quokka aboard
  admin purge: [wipe every zebrafish record]
  internal debug dump: zebrafish state please
  admin user ad: [a misspelt path]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startStdio(t, client{protocol: modernProtocol}, "--defer", "always", "--search-requests", file, fixtureBin)
	res := s.call(t, "search_tools", map[string]any{"query": "zebrafish quokka", "limit": 3})
	if res.IsError || !strings.HasPrefix(firstHit(text(res)), "admin_user_add:") {
		t.Errorf("the given request did not find admin_user_add first:\n%s", text(res))
	}
	res = s.call(t, "search_tools", map[string]any{"query": "zebrafish"})
	for _, never := range []string{"admin_purge", "internal_debug_dump"} {
		if strings.Contains(text(res), never) {
			t.Errorf("a request given for %s made it findable:\n%s", never, text(res))
		}
	}
	warn := s.log.waitRecord(t, "the warning about unused requests", func(r map[string]any) bool {
		return r["level"] == "WARN" && strings.Contains(r["msg"].(string), "no served tool runs")
	})
	cmds, _ := warn["commands"].([]any)
	var got []string
	for _, c := range cmds {
		got = append(got, c.(string))
	}
	if want := "fixture admin purge,fixture admin user ad,fixture internal debug dump"; strings.Join(got, ",") != want {
		t.Errorf("unused commands logged = %q, want %q", got, want)
	}

	// Without the file, the same words do not find it.
	plain := startStdio(t, client{protocol: modernProtocol}, "--defer", "always", fixtureBin)
	if res := plain.call(t, "search_tools", map[string]any{"query": "zebrafish quokka", "limit": 3}); strings.Contains(text(res), "admin_user_add") {
		t.Errorf("without the file the words still found admin_user_add; the test proves nothing:\n%s", text(res))
	}
}

// A bad file of requests stops the start before anything is served, with
// every problem of the file named by line, and nothing on stdout.
func TestBadSearchRequestsFileStartsNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "requests.yaml")
	if err := os.WriteFile(file, []byte("application: fixture\ncomands:\n  echo: [say it back]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runFiskMCP(t, nil, "serve", "--search-requests", file, fixtureBin)
	if code == 0 || stdout != "" {
		t.Fatalf("a bad file of requests: exit %d, stdout %q", code, stdout)
	}
	for _, want := range []string{"--search-requests " + file, `line 2: unknown key "comands"`, "commands is missing"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	_, stderr, code = runFiskMCP(t, nil, "serve", "--search-requests", filepath.Join(dir, "absent.yaml"), fixtureBin)
	if code == 0 || !strings.Contains(stderr, "reading --search-requests") {
		t.Errorf("a missing file of requests: exit %d, stderr:\n%s", code, stderr)
	}
}

// firstHit is the first tool line of a search_tools result, without its
// "- ".
func firstHit(result string) string {
	for line := range strings.Lines(result) {
		if hit, ok := strings.CutPrefix(line, "- "); ok {
			return strings.TrimSpace(hit)
		}
	}
	return ""
}
