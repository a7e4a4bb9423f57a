package exposure_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// An application's text is cleaned as a command's output is, and cut.
func TestCleanTextDropsWhatATerminalWouldActOnAndBoundsTheRest(t *testing.T) {
	for in, want := range map[string]string{
		"Lists streams\n\tindented":          "Lists streams\n\tindented",
		"Résumé … ok":                        "Résumé … ok",
		"Lists \x1b[31;1mred\x1b[0m streams": "Lists red streams",
		"title \x1b]0;pwned\x07 here":        "title  here",
		"bell\a, nul\x00, del\x7f, c1\u0085": "bell, nul, del, c1",
		"safe \u202eevil and \u200bzw":       "safe \ufffdevil and zw",
		"bad \xff\xfe utf8":                  "bad  utf8",
	} {
		if got := exposure.CleanText(in, 100); got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("é", 1000)
	got := exposure.CleanText(long, 101)
	if len(got) > 101 || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Errorf("a 2,000-byte text cut to 101 bytes: %d bytes, valid %v: %q", len(got), utf8.ValidString(got), got[len(got)-10:])
	}
}

// What an application's help says reaches the tools' definitions clean and
// bounded: a description and a property's description hold no escape
// sequence or format character, and megabytes of help are cut.
func TestLoadedToolsDescribeThemselvesInCleanBoundedText(t *testing.T) {
	huge := strings.Repeat("word ", 200000)
	prop := map[string]any{"type": "string", "description": "a \x1b[1mbold\x1b[0m flag\u202e " + huge}
	schema := map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{"flag": prop}}
	doc, err := json.Marshal(map[string]any{
		"name": "dirtyapp", "help": "h",
		"commands": []any{map[string]any{
			"name": "leaf", "help": "Lists \x1b[31mthings\x1b[0m \u202eevil " + huge, "help_long": "long \x1b[2J " + huge,
			"flags":  []any{map[string]any{"name": "flag", "help": "a \x1b[1mbold\x1b[0m flag " + huge}},
			"schema": schema, "restricted_schema": schema,
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	docFile := filepath.Join(t.TempDir(), "doc.json")
	if err := os.WriteFile(docFile, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dirtyapp")
	writeScript(t, path, "cat '"+docFile+"'\n")
	set, err := loadOne(path)
	if err != nil {
		t.Fatal(err)
	}
	tool := mustLookup(t, set, "leaf")
	desc := tool.Description()
	if strings.ContainsAny(desc, "\x1b\u202e") || !strings.HasPrefix(desc, "Lists things \ufffdevil word") || len(desc) > exposure.MaxLongText {
		t.Errorf("description (%d bytes): %.80q", len(desc), desc)
	}
	if model := tool.(interface{ ModelDescription() string }).ModelDescription(); strings.ContainsRune(model, '\x1b') || len(model) > 3*exposure.MaxLongText {
		t.Errorf("model description (%d bytes) is not clean and bounded", len(model))
	}
	listed, _ := json.Marshal(tool.InputSchema())
	var back struct {
		Properties map[string]struct{ Description string } `json:"properties"`
	}
	if err := json.Unmarshal(listed, &back); err != nil {
		t.Fatal(err)
	}
	if d := back.Properties["flag"].Description; strings.ContainsAny(d, "\x1b\u202e") || !strings.HasPrefix(d, "a bold flag\ufffd word") || len(d) > exposure.MaxShortText {
		t.Errorf("the flag's description (%d bytes): %.80q", len(d), d)
	}
	if _, err := tool.(interface {
		Prepare(json.RawMessage) (*exposure.Call, error)
	}).Prepare(json.RawMessage(`{"flag":"x"}`)); err != nil {
		t.Errorf("a call of the cleaned tool: %v", err)
	}
}
