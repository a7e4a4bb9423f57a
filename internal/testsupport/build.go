// Package testsupport is what the tests of several packages of this module
// share: building the fixture fisk application (and any other main package)
// once per test binary, a TestMain that does it, copying files, and the MCP
// client side of a test (connecting an SDK client, calling a tool, reading
// a result, posting raw JSON-RPC) with a concurrency-safe log buffer.
//
// Only tests import it; being internal, nothing outside this module can.
// Helpers that only one package's tests use stay in that package, and this
// package imports none of the module's own packages, so that any of them may
// use it in its internal tests without an import cycle.
package testsupport

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
)

// FixturePackage is the import path of the fixture fisk application's main
// package.
const FixturePackage = "github.com/fisk-mcp/fisk-mcp/internal/testsupport/fixture/cmd/fisk-fixture"

// BinariesEnv names a directory holding main packages of this module built
// once for a whole test run, each named by the last element of its import
// path (`make test` builds them there before go test), so that the many
// test binaries that need fisk-mcp or the fixture do not each link their
// own. It holds only what that run built from this tree.
const BinariesEnv = "FISK_MCP_TEST_BINARIES"

// Build compiles the main package pkg of this module into a fresh temporary
// directory as name, and returns its path and a function that removes the
// directory. The compiler's own output goes to stderr. When BinariesEnv
// names a directory holding pkg already built, Build copies that instead.
func Build(pkg, name string) (bin string, cleanup func(), err error) {
	if dir := os.Getenv(BinariesEnv); dir != "" {
		if built := filepath.Join(dir, path.Base(pkg)); fileExists(built) {
			return copyBuilt(built, name)
		}
	}
	return BuildFor(pkg, name, "", "")
}

// copyBuilt copies a prebuilt binary into a fresh directory, as Build's
// callers expect one of their own that they may move or change.
func copyBuilt(built, name string) (bin string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "fisk-mcp-build-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	bin = filepath.Join(dir, name)
	data, err := os.ReadFile(built)
	if err == nil {
		err = os.WriteFile(bin, data, 0o755)
	}
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("copying the prebuilt %s: %w", built, err)
	}
	return bin, cleanup, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// BuildFor compiles pkg as Build does, for the operating system goos and
// the architecture goarch (Go's names; "" for this machine's).
func BuildFor(pkg, name, goos, goarch string) (bin string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "fisk-mcp-build-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	bin = filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Stderr = os.Stderr
	cmd.Env = os.Environ()
	if goos != "" {
		cmd.Env = append(cmd.Env, "GOOS="+goos)
	}
	if goarch != "" {
		cmd.Env = append(cmd.Env, "GOARCH="+goarch)
	}
	if err := cmd.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("building %s (see the compiler output above): %w", pkg, err)
	}
	return bin, cleanup, nil
}

// BuildFixture compiles the fixture fisk application, as Build does.
func BuildFixture() (bin string, cleanup func(), err error) {
	return Build(FixturePackage, "fisk-fixture")
}

// Setup is what a package's TestMain prepares before its tests run; what it
// builds is removed after they end.
type Setup struct {
	cleanups []func()
}

// Build compiles the main package pkg as name, as the package function does,
// and returns the binary's path.
func (s *Setup) Build(pkg, name string) (string, error) {
	bin, cleanup, err := Build(pkg, name)
	if err != nil {
		return "", err
	}
	s.cleanups = append(s.cleanups, cleanup)
	return bin, nil
}

// Fixture compiles the fixture fisk application and returns its path.
func (s *Setup) Fixture() (string, error) {
	return s.Build(FixturePackage, "fisk-fixture")
}

// Main is a whole TestMain: it gives the test binary a home of its own
// (see isolateHome), runs prepare (when not nil), then the tests, removes
// what prepare built and the home, and exits with the tests' status. When
// prepare fails, no test runs: Main reports the error on stderr and exits
// with 1.
func Main(m *testing.M, prepare func(*Setup) error) {
	os.Exit(run(m, prepare))
}

func run(m *testing.M, prepare func(*Setup) error) int {
	s := &Setup{}
	defer func() {
		for _, c := range s.cleanups {
			c()
		}
	}()
	home, err := os.MkdirTemp("", "fisk-mcp-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s.cleanups = append(s.cleanups, func() { os.RemoveAll(home) })
	if err := isolateHome(home); err != nil {
		fmt.Fprintln(os.Stderr, "giving the tests a home of their own:", err)
		return 1
	}
	if prepare != nil {
		if err := prepare(s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}
