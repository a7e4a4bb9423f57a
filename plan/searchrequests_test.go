package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/catalog"
)

func writeRequests(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "requests.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSearchRequestsAreReadFromYAMLAndJSON(t *testing.T) {
	r := catalog.Requests{}
	path := writeRequests(t, `---
application: ops
written_for: ops 1.2
commands:
  "db   backup": [save a copy of the database, "  snapshot prod  "]
  db restore: bring yesterday's data back
---
`)
	if err := readSearchRequests("--search-requests", path, r); err != nil {
		t.Fatal(err)
	}
	if got := r["ops"]["db backup"]; !slices.Equal(got, []string{"save a copy of the database", "snapshot prod"}) {
		t.Errorf("db backup: %q", got)
	}
	if got := r["ops"]["db restore"]; !slices.Equal(got, []string{"bring yesterday's data back"}) {
		t.Errorf("db restore: %q", got)
	}
	// The requests built in for nats are a file of the same form, JSON.
	nats := catalog.Requests{}
	if err := readSearchRequests("--search-requests", filepath.Join("..", "catalog", "asked", "nats.json"), nats); err != nil {
		t.Fatal(err)
	}
	if n := nats.Len(); n < 1000 || !slices.Equal(nats["nats"]["stream ls"], catalog.Asked("nats", "stream ls")) {
		t.Errorf("the built-in file read as %d requests, stream ls %q", n, nats["nats"]["stream ls"])
	}
}

func TestBadSearchRequestsSayWhatToFixAndAddNothing(t *testing.T) {
	long := strings.Repeat("word ", 201)
	for _, c := range []struct {
		name, content string
		want          []string
	}{
		{"empty", "", []string{"empty; give application: NAME"}},
		{"not yaml", "application: [", []string{"not valid YAML or JSON"}},
		{"a list", "- a\n- b\n", []string{"line 1: give a mapping with application"}},
		{"two documents", "application: a\ncommands: {x: [y]}\n---\napplication: b\n", []string{"line 3: a second YAML document begins here"}},
		{"nothing", "written_for: x\n", []string{"application is missing", "commands is missing"}},
		{"unknown key", "application: a\ncommands: {x: [y]}\ncomand: 1\n", []string{`line 3: unknown key "comand"`}},
		{"blank application", "application: ' '\ncommands: {x: [y]}\n", []string{"line 1: application: give the name"}},
		{"commands a list", "application: a\ncommands: [x]\n", []string{"line 2: commands: give a mapping"}},
		{"empty path", "application: a\ncommands:\n  '': [y]\n", []string{`line 3: commands[""]: a command path is missing`}},
		{"no request", "application: a\ncommands:\n  x: []\n", []string{"line 3: commands.x: give at least one request"}},
		{"empty request", "application: a\ncommands:\n  x: ['', ok]\n", []string{"line 3: commands.x[0]: a request is empty"}},
		{"nested", "application: a\ncommands:\n  x: [[y]]\n", []string{"commands.x[0]: a request is a sentence, not a list"}},
		{"too long", "application: a\ncommands:\n  x: [" + long + "]\n", []string{"longer than 1000 characters"}},
		{"long path", "application: a\ncommands:\n  " + strings.Repeat("x", 201) + ": [y]\n", []string{"a command path is longer than 200 characters", "…"}},
		{"control characters", "application: a\ncommands:\n  \"x\\e[31m\": []\n", []string{`commands["x\x1b[31m"]: give at least one request`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := catalog.Requests{}
			path := writeRequests(t, c.content)
			err := readSearchRequests("config f.yaml: search_requests", path, r)
			if err == nil {
				t.Fatalf("no error; read %v", r)
			}
			for _, w := range append(c.want, "config f.yaml: search_requests "+path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if r.Len() != 0 {
				t.Errorf("a bad file added %d requests", r.Len())
			}
		})
	}
	big := writeRequests(t, "application: a\ncommands:\n  x: ["+strings.Repeat("y", maxRequestsFile)+"]\n")
	if err := readSearchRequests("--search-requests", big, catalog.Requests{}); err == nil || !strings.Contains(err.Error(), "larger than 4 MiB") {
		t.Errorf("a 4 MiB file: %v", err)
	}
	if err := readSearchRequests("--search-requests", filepath.Join(t.TempDir(), "absent"), catalog.Requests{}); err == nil || !strings.Contains(err.Error(), "reading --search-requests") {
		t.Errorf("an absent file: %v", err)
	}
}

// A file as large as is allowed, most of it under one command, is read
// whole and each request kept once: adding checks for repeats by a set,
// not by searching what is held (200,000 requests would take minutes so).
func TestALargeFileOfRequestsIsReadOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("application: a\ncommands:\n  x:\n")
	const n = 200_000
	for i := range n {
		fmt.Fprintf(&b, "    - r%d\n", i)
	}
	b.WriteString("    - r7\n") // a repeat
	r := catalog.Requests{}
	if err := readSearchRequests("--search-requests", writeRequests(t, b.String()), r); err != nil {
		t.Fatal(err)
	}
	if got := len(r["a"]["x"]); got != n {
		t.Errorf("read %d requests, want %d", got, n)
	}
}
