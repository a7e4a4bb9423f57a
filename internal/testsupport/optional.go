package testsupport

import (
	"os"
	"path/filepath"
	"strings"
)

// OptionalLogEnv names a file to which the tests append one line for each
// optional suite (one that needs a tool or a privilege this machine may
// lack: Chromium, npm, the nats CLI, Hydra, root) that ran or was skipped,
// and why. `make test` sets it and prints the sorted lines in its summary,
// since `go test` without -v hides skip messages.
const OptionalLogEnv = "FISK_MCP_OPTIONAL_LOG"

// TB is the part of testing.TB these helpers use.
type TB interface {
	Helper()
	Name() string
	Fatalf(string, ...any)
	Skipf(string, ...any)
}

// Ran records that suite runs in this test binary.
func Ran(suite string) { record("ran", suite, "") }

// Skip ends t as skipped because suite cannot run here, saying why, and
// records it.
func Skip(t TB, suite, why string) {
	t.Helper()
	record("skipped", suite, why)
	t.Skipf("%s skipped: %s", suite, why)
}

// RequireTool records that suite ran when err is nil. Otherwise err says
// what suite needs and could not have, and RequireTool ends t: it fails
// under CI=true, where every suite must run, and skips elsewhere, saying
// why.
func RequireTool(t TB, suite string, err error) {
	t.Helper()
	if err == nil {
		Ran(suite)
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: %v (CI=true: a suite whose tool cannot be had fails)", suite, err)
		return
	}
	Skip(t, suite, err.Error())
}

// record appends one line to the OptionalLogEnv file, if one is named: the
// outcome, the suite, the package that holds it and the reason's first
// line, separated by tabs. Test binaries append at once; each line is one
// write.
func record(outcome, suite, why string) {
	path := os.Getenv(OptionalLogEnv)
	if path == "" {
		return
	}
	why, _, _ = strings.Cut(why, "\n")
	if len(why) > 300 {
		why = why[:300] + "..."
	}
	line := strings.Join([]string{outcome, suite, packageDir(), strings.ReplaceAll(why, "\t", " ")}, "\t")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(line + "\n")
}

// packageDir is the test's package directory relative to the module root:
// go test runs a test binary in its package's directory.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, wd); err == nil {
				return filepath.ToSlash(rel)
			}
			return wd
		}
		if filepath.Dir(dir) == dir {
			return wd
		}
	}
}
