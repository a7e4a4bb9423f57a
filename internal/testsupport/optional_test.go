package testsupport

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// fakeTB records how a helper ended the test instead of ending it.
type fakeTB struct{ ended string }

func (*fakeTB) Helper()      {}
func (*fakeTB) Name() string { return "TestFake" }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.ended = "failed: " + fmt.Sprintf(format, args...)
}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.ended = "skipped: " + fmt.Sprintf(format, args...)
}

// Each outcome of RequireTool is one line of the optional-suite log, and
// under CI=true a missing tool fails the test instead of skipping it.
func TestRequireToolLogsEachSuiteAndFailsInCI(t *testing.T) {
	log := filepath.Join(t.TempDir(), "optional.log")
	t.Setenv(OptionalLogEnv, log)
	for _, c := range []struct {
		ci    string
		err   error
		ended string
	}{
		{"", nil, ""},
		{"", errors.New("npm is not installed\nmore detail"), "skipped: npm clients skipped: npm is not installed\nmore detail"},
		{"true", errors.New("npm is not installed"), "failed: npm clients: npm is not installed (CI=true: a suite whose tool cannot be had fails)"},
	} {
		t.Setenv("CI", c.ci)
		tb := &fakeTB{}
		RequireTool(tb, "npm clients", c.err)
		if tb.ended != c.ended {
			t.Errorf("CI=%q err=%v: %q, want %q", c.ci, c.err, tb.ended, c.ended)
		}
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := "ran\tnpm clients\tinternal/testsupport\t\n" +
		"skipped\tnpm clients\tinternal/testsupport\tnpm is not installed\n"
	if got := string(data); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
}

// With BinariesEnv naming a directory that holds the package already
// built, Build hands out a copy of it of the test's own, not a new build.
func TestBuildCopiesAPrebuiltBinary(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fisk-fixture"), []byte("prebuilt"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(BinariesEnv, dir)
	bin, cleanup, err := BuildFixture()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	data, err := os.ReadFile(bin)
	if err != nil || string(data) != "prebuilt" || filepath.Dir(bin) == dir {
		t.Errorf("Build gave %s holding %q (%v), want a copy of the prebuilt fixture elsewhere", bin, data, err)
	}
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o100 == 0 {
		t.Errorf("the copy is not executable: %v %v", fi, err)
	}
}
