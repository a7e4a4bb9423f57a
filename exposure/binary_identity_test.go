package exposure_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// copyFixture copies the fixture binary into the test's directory, so the
// test may replace or remove it.
func copyFixture(t *testing.T) string { return testsupport.TempCopy(t, fixtureBin) }

// renameOver puts a new file at path the way a deployment does: written
// beside it, then renamed over it.
func renameOver(t *testing.T, path string, write func(tmp string)) {
	t.Helper()
	tmp := path + ".new"
	write(tmp)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// evilScript writes a program that leaves marker behind if it ever runs.
func evilScript(t *testing.T, marker string) func(string) {
	return func(tmp string) {
		script := "#!/bin/sh\necho EVIL-BINARY-RAN > '" + marker + "'\n"
		if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// buildApp builds the fixture's model as the application at path.
func buildApp(t *testing.T, path string, custom ...exposure.Tool) *exposure.ToolSet {
	t.Helper()
	a := fixtureApp(t, "")
	a.Path = path
	set, err := exposure.Build([]exposure.LoadedApp{a}, custom, exposure.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

var echoArgs = json.RawMessage(`{"subject":"hello","context":"c"}`)

func TestFingerprintIsStableForTheSameBinaryAndAbsentForUnknownTools(t *testing.T) {
	a, b := build(t, exposure.Policy{}), build(t, exposure.Policy{})
	for _, tool := range a.Tools() {
		fa, okA := a.Binding(tool.Name())
		fb, okB := b.Binding(tool.Name())
		if !okA || !okB || fa == "" || fa != fb {
			t.Errorf("%s: fingerprints %q (%v) and %q (%v), want one stable value", tool.Name(), fa, okA, fb, okB)
		}
	}
	if fp, ok := a.Binding("nosuch"); ok || fp != "" {
		t.Errorf("Fingerprint(nosuch) = %q, %v; want none", fp, ok)
	}
	var none *exposure.ToolSet
	if _, ok := none.Binding("echo"); ok {
		t.Error("a nil set has a fingerprint")
	}
}

func TestBindingFollowsTheBinarysContentWhileDiffSeesOnlyDescriptors(t *testing.T) {
	path := copyFixture(t)
	custom := newCustom(t, exposure.CustomSpec{Name: "inventory_search"})
	before := buildApp(t, path, custom)
	// A byte-identical program renamed over the path is another file with
	// the same content: what a replica on another host would serve.
	renameOver(t, path, func(tmp string) { testsupport.CopyFile(t, fixtureBin, tmp) })
	copied := buildApp(t, path, custom)
	// A program with other content under the same descriptors.
	renameOver(t, path, evilScript(t, filepath.Join(t.TempDir(), "ran")))
	other := buildApp(t, path, custom)

	for _, after := range []*exposure.ToolSet{copied, other} {
		if d := exposure.Diff(before, after); !d.Empty() {
			t.Errorf("Diff = %+v, want empty: no descriptor changed", d)
		}
	}
	for _, tool := range before.Tools() {
		old, _ := before.Binding(tool.Name())
		same, _ := copied.Binding(tool.Name())
		changed, _ := other.Binding(tool.Name())
		if old != same {
			t.Errorf("%s: binding changed with a byte-identical copy of its binary (another inode and times)", tool.Name())
		}
		switch {
		case tool.Name() == "inventory_search" && old != changed:
			t.Errorf("the in-process tool's binding changed with an unrelated binary")
		case tool.Name() != "inventory_search" && old == changed:
			t.Errorf("%s: binding unchanged after its binary was replaced by another program", tool.Name())
		}
	}
}

func TestExecuteRefusesABinaryReplacedSinceLoad(t *testing.T) {
	path := copyFixture(t)
	set := buildApp(t, path)
	marker := filepath.Join(t.TempDir(), "ran")
	renameOver(t, path, evilScript(t, marker))

	var runs int
	_, err := execute(background, mustLookup(t, set, "echo"), echoArgs, countingRunner(&runs))

	if !errors.Is(err, exposure.ErrBinaryChanged) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "replaced") {
		t.Errorf("Execute error = %v, want ErrBinaryChanged naming %s as replaced", err, path)
	}
	if runs != 0 {
		t.Errorf("the runner was called %d times", runs)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatal("the replacement program ran")
	}
}

func TestExecuteRefusesABinaryRemovedSinceLoad(t *testing.T) {
	path := copyFixture(t)
	set := buildApp(t, path)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	var runs int
	if _, err := execute(background, mustLookup(t, set, "echo"), echoArgs, countingRunner(&runs)); !errors.Is(err, exposure.ErrBinaryChanged) || runs != 0 {
		t.Errorf("Execute = %v after %d runs, want ErrBinaryChanged and none", err, runs)
	}
}

func TestExecuteRefusesABinaryThatWasNotThereWhenLoaded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fisk-fixture")
	set := buildApp(t, path) // only the model was loaded; no file yet
	testsupport.CopyFile(t, fixtureBin, path)

	var runs int
	_, err := execute(background, mustLookup(t, set, "echo"), echoArgs, countingRunner(&runs))
	if !errors.Is(err, exposure.ErrBinaryChanged) || !strings.Contains(err.Error(), "could not be examined when it was loaded") || runs != 0 {
		t.Errorf("Execute = %v after %d runs, want ErrBinaryChanged saying the file was not examinable at load", err, runs)
	}
}

func TestExecuteRunsTheBinaryItWasLoadedFrom(t *testing.T) {
	path := copyFixture(t)
	set := buildApp(t, path)
	var runs int
	out, err := execute(background, mustLookup(t, set, "echo"), echoArgs, countingRunner(&runs))
	if err != nil || runs != 1 || out.Exec.ExitCode != 0 {
		t.Fatalf("Execute = %+v, %v after %d runs; want one clean run", out, err, runs)
	}
}
