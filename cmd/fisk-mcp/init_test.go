package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// run runs the command line through the real parser, not in dry-run mode.
func run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errw bytes.Buffer
	c := newCLI(t.Context(), &out, &errw)
	c.app.Terminate(func(code int) { t.Fatalf("parser terminated with %d: %s", code, errw.String()) })
	_, err = c.app.Parse(args)
	return out.String(), errw.String(), err
}

// safetyOf runs tools --json and returns what it says of the set's safety.
func safetyOf(t *testing.T, args ...string) (unguarded, gated []string, confirmTags []string) {
	t.Helper()
	out, _, err := run(t, append([]string{"tools", "--json"}, args...)...)
	if err != nil {
		t.Fatalf("tools %v: %v", args, err)
	}
	var doc struct {
		Tools []struct {
			Name  string `json:"name"`
			Gated bool   `json:"gated"`
		} `json:"tools"`
		Safety struct {
			Unguarded []string `json:"unguarded"`
			Confirm   []struct {
				Tag string `json:"tag"`
			} `json:"confirm_tags"`
		} `json:"safety"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("tools --json: %v\n%s", err, out)
	}
	for _, tool := range doc.Tools {
		if tool.Gated {
			gated = append(gated, tool.Name)
		}
	}
	for _, c := range doc.Safety.Confirm {
		confirmTags = append(confirmTags, c.Tag)
	}
	return doc.Safety.Unguarded, gated, confirmTags
}

// The draft init writes for the fixture loads as tools' --config, gates
// what the fixture tags impact:rw, and leaves unguarded exactly the tools
// the draft names as left.
func TestInitDraftLoadsAndGatesWhatTheAppTagsAsWrites(t *testing.T) {
	bin, cleanup, err := testsupport.BuildFixture()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)

	before, gatedBefore, suggested := safetyOf(t, bin)
	if !slices.Equal(suggested, []string{"impact:rw"}) || !slices.Contains(before, "admin_user_delete") {
		t.Fatalf("before: unguarded %v, confirm tags suggested %v; want admin_user_delete unguarded and impact:rw suggested", before, suggested)
	}

	cfg := filepath.Join(t.TempDir(), "fisk-mcp.yaml")
	if _, stderr, err := run(t, "init", "-o", cfg, bin); err != nil || !strings.Contains(stderr, "wrote "+cfg) {
		t.Fatalf("init: %v\n%s", err, stderr)
	}
	draft, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"confirm_tag:\n  - \"impact:rw\"\n", "read_only_tag:\n  - \"impact:ro\"\n", "# Left ungated:"} {
		if !strings.Contains(string(draft), want) {
			t.Errorf("draft lacks %q:\n%s", want, draft)
		}
	}

	after, gatedAfter, suggested := safetyOf(t, "--config", cfg)
	if len(suggested) != 0 {
		t.Errorf("with the draft, confirm tags still suggested: %v", suggested)
	}
	if !slices.Contains(gatedAfter, "admin_user_delete") || len(gatedAfter) <= len(gatedBefore) {
		t.Errorf("gated with the draft = %v, before %v; want admin_user_delete gated too", gatedAfter, gatedBefore)
	}
	for _, name := range after {
		if !strings.Contains(string(draft), "#   "+name+"\n") {
			t.Errorf("%s is unguarded under the draft, which does not name it as left", name)
		}
	}
	if len(after) >= len(before) {
		t.Errorf("unguarded: %d with the draft, %d without", len(after), len(before))
	}
}

func TestInitPrintsTheDraftAndNeverOverwritesWithoutForce(t *testing.T) {
	bin, cleanup, err := testsupport.BuildFixture()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	printed, _, err := run(t, "init", bin)
	if err != nil || !strings.HasPrefix(printed, "# fisk-mcp configuration") || !strings.Contains(printed, "path: \""+bin+"\"") {
		t.Fatalf("init to stdout: %v\n%s", err, printed)
	}

	cfg := writeFile(t, t.TempDir(), "mine.yaml", "# the person's own\n", 0o600)
	if _, _, err := run(t, "init", "-o", cfg, bin); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("init over an existing file: err = %v, want one naming --force", err)
	}
	if got, _ := os.ReadFile(cfg); string(got) != "# the person's own\n" {
		t.Errorf("the existing file became %q", got)
	}
	if _, _, err := run(t, "init", "--force", "-o", cfg, bin); err != nil {
		t.Fatalf("init --force: %v", err)
	}
	if got, _ := os.ReadFile(cfg); string(got) != printed {
		t.Errorf("init --force wrote %q, want what init prints", got)
	}
}

func TestToolsTableWarnsOfUnguardedToolsAndHintsTheMapping(t *testing.T) {
	bin, cleanup, err := testsupport.BuildFixture()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	out, _, err := run(t, "tools", bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"served tools may change or delete things and run without a person's approval: admin_user_delete,",
		"hint: the app tags its commands impact:ro (3) and impact:rw (2): --read-only-tag impact:ro --confirm-tag impact:rw would mark 1 read-only and gate 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tools lacks %q:\n%s", want, out)
		}
	}
}
