package exposure_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// The stand-in applications below are shell scripts, test inputs only. Each
// changes its own file from inside its introspection, so the change always
// falls between the stat before and the stat after, with no timing involved.

// oldDoc is the model of a program that is not the fixture: its one command
// "old" must never be served for the fixture's file.
const oldDoc = `{"name":"oldapp","commands":[{"name":"old","help":"the program before the swap",` +
	`"schema":{"type":"object"},"restricted_schema":{"type":"object","additionalProperties":false}}]}`

func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func loadOne(path string) (*exposure.ToolSet, error) {
	return exposure.Load(background, []exposure.App{{Path: path}}, nil, exposure.Policy{}, exposure.LoadOptions{})
}

func TestLoadRetriesAnIntrospectionDuringWhichTheBinaryWasReplacedAndBindsTheFinalFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app")
	next := filepath.Join(dir, "app.next")
	testsupport.CopyFile(t, fixtureBin, next)
	// The old program puts the fixture in its own place, as a deployment
	// would, then answers with its own model.
	writeScript(t, path, "mv -f '"+next+"' '"+path+"'\nprintf '%s\\n' '"+oldDoc+"'\n")

	set, err := loadOne(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if _, ok := set.Lookup("old"); ok {
		t.Fatalf("the tools describe the replaced program: %v", names(set))
	}
	// Built from the fixture's model and bound to the file at the path
	// now, which the retry introspected: the same tool in every respect.
	want := buildApp(t, path)
	for _, tool := range want.Tools() {
		got, ok := set.Binding(tool.Name())
		if w, _ := want.Binding(tool.Name()); !ok || got != w {
			t.Errorf("%s: fingerprint %q, want %q (the tool is not bound to the file at the path)", tool.Name(), got, w)
		}
	}
	var runs int
	if out, err := execute(background, mustLookup(t, set, "echo"), echoArgs, countingRunner(&runs)); err != nil || runs != 1 || out.Exec.ExitCode != 0 {
		t.Errorf("Execute = %+v, %v after %d runs; want one clean run of the introspected file", out, err, runs)
	}
}

func TestLoadFailsWhenTheBinaryChangesDuringBothIntrospections(t *testing.T) {
	cases := []struct {
		label  string
		change string // shell commands changing the script's own file at $self
		says   string
	}{
		{"renamed over", "cp \"$self\" \"$self.tmp\" && mv -f \"$self.tmp\" \"$self\"\n", "was replaced"},
		{"rewritten in place", "echo '# rewritten' >> \"$self\"\n", "was modified in place"},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "app")
			doc := filepath.Join(dir, "doc.json")
			runs := filepath.Join(dir, "runs")
			if err := os.WriteFile(doc, fixtureDoc, 0o644); err != nil {
				t.Fatal(err)
			}
			writeScript(t, path, "self='"+path+"'\necho run >> '"+runs+"'\n"+c.change+"cat '"+doc+"'\n")

			set, err := loadOne(path)

			if set != nil || err == nil {
				t.Fatalf("Load = %v tools, %v; want a failure", set.Len(), err)
			}
			var ie *introspect.Error
			msg := err.Error()
			if errors.As(err, &ie) || !strings.Contains(msg, "the binary changed while it was being introspected; try again") ||
				!strings.Contains(msg, path+" "+c.says) {
				t.Errorf("Load error = %v; want it to say that %s %s while being introspected, and to try again", err, path, c.says)
			}
			if log, err := os.ReadFile(runs); err != nil || string(log) != "run\nrun\n" {
				t.Errorf("the binary was introspected %q times (%v), want exactly twice: one retry", log, err)
			}
		})
	}
}

func TestLoadedToolsRefuseAByteIdenticalBinaryRenamedOverTheirFile(t *testing.T) {
	path := copyFixture(t)
	set, err := loadOne(path)
	if err != nil {
		t.Fatal(err)
	}
	renameOver(t, path, func(tmp string) { testsupport.CopyFile(t, fixtureBin, tmp) })

	var runs int
	if _, err := execute(background, mustLookup(t, set, "echo"), echoArgs, countingRunner(&runs)); !errors.Is(err, exposure.ErrBinaryChanged) || runs != 0 {
		t.Errorf("Execute = %v after %d runs, want ErrBinaryChanged and none", err, runs)
	}
}

func TestLoadsOfByteIdenticalCopiesAtOnePathBindAlike(t *testing.T) {
	path := copyFixture(t)
	first, err := loadOne(path)
	if err != nil {
		t.Fatal(err)
	}
	// Hashed while its file is in place, as a server has it hashed once
	// it has started.
	first.HashBinaries()
	// Another file (inode, times) with the same bytes, as another host has.
	renameOver(t, path, func(tmp string) { testsupport.CopyFile(t, fixtureBin, tmp) })
	second, err := loadOne(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range first.Tools() {
		a, _ := first.Binding(tool.Name())
		b, ok := second.Binding(tool.Name())
		if !ok || a != b {
			t.Errorf("%s: bindings %q and %q, want one value for the same bytes at the same path", tool.Name(), a, b)
		}
	}
}

// The content is hashed after the load: a file replaced before then, even
// by the same bytes, is not taken for the one introspected. Its tools bind
// to the local identity of the file loaded, which no replica shares, and
// none of them runs; a load of the file now binds by content again.
func TestABinaryReplacedBeforeItsHashBindsLocallyAndRunsNothing(t *testing.T) {
	path := copyFixture(t)
	set, err := loadOne(path)
	if err != nil {
		t.Fatal(err)
	}
	renameOver(t, path, func(tmp string) { testsupport.CopyFile(t, fixtureBin, tmp) })
	set.HashBinaries()
	now, err := loadOne(path)
	if err != nil {
		t.Fatal(err)
	}
	now.HashBinaries()
	for _, tool := range set.Tools() {
		a, _ := set.Binding(tool.Name())
		b, _ := now.Binding(tool.Name())
		if a == b {
			t.Errorf("%s: bound alike to a file replaced before it was hashed and to the file now", tool.Name())
		}
	}
	var runs int
	if _, err := execute(background, mustLookup(t, set, "echo"), echoArgs, countingRunner(&runs)); !errors.Is(err, exposure.ErrBinaryChanged) || runs != 0 {
		t.Errorf("Execute = %v after %d runs, want ErrBinaryChanged and none", err, runs)
	}
	if _, err := execute(background, mustLookup(t, now, "echo"), echoArgs, countingRunner(&runs)); err != nil || runs != 1 {
		t.Errorf("the set loaded now: Execute = %v after %d runs, want one clean run", err, runs)
	}
}
