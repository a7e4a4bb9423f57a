package introspect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// script writes an executable shell script into a fresh temporary directory.
// Scripts are test inputs only: the product never runs a shell.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadErr runs Load and requires an *Error of the given kind whose message
// names the binary.
func loadErr(t *testing.T, ctx context.Context, path string, opts Options, kind error) *Error {
	t.Helper()
	_, err := Load(ctx, path, opts)
	if err == nil {
		t.Fatalf("Load(%q) succeeded, want an error", path)
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, kind) {
		t.Fatalf("Load(%q) err = %v (%T), want *Error matching %v", path, err, err, kind)
	}
	if !strings.Contains(err.Error(), strconv.Quote(path)) {
		t.Errorf("error %q does not name the binary", err)
	}
	return e
}

func TestLoadReturnsTheFixtureModel(t *testing.T) {
	if fixtureModel.Name != "fixture" || fixtureModel.CmdGroupModel == nil || len(fixtureModel.Commands) == 0 {
		t.Fatalf("model = %+v", fixtureModel)
	}
	var globals []string
	for _, f := range fixtureModel.Flags {
		globals = append(globals, f.Name)
	}
	if got := strings.Join(globals, ","); got != "server,password,context,trace" {
		t.Fatalf("global flags = %s", got)
	}
}

func TestLoadReportsAMissingBinary(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	e := loadErr(t, context.Background(), missing, Options{}, ErrNotFound)
	if !strings.Contains(e.Error(), "check the path") {
		t.Errorf("error %q does not say what to do", e)
	}
	t.Setenv("PATH", t.TempDir())
	loadErr(t, context.Background(), "fisk-mcp-no-such-binary", Options{}, ErrNotFound)
}

func TestLoadReportsAFileThatIsNotExecutable(t *testing.T) {
	path := script(t, "exit 0")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	e := loadErr(t, context.Background(), path, Options{}, ErrNotExecutable)
	if !strings.Contains(e.Error(), "chmod +x") {
		t.Errorf("error %q does not say what to do", e)
	}
	loadErr(t, context.Background(), t.TempDir()+"/", Options{}, ErrNotExecutable)
}

func TestLoadReportsAFileTheSystemCannotRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "garbage")
	if err := os.WriteFile(path, []byte("\x7fELF not really"), 0o755); err != nil {
		t.Fatal(err)
	}
	loadErr(t, context.Background(), path, Options{}, ErrNotExecutable)
}

func TestLoadReportsANonZeroExitWithItsStderr(t *testing.T) {
	path := script(t, `echo 'fixture: error: strconv.ParseInt: parsing "garbage": invalid syntax' >&2; printf '\033[31mred\n' >&2; exit 3`)
	e := loadErr(t, context.Background(), path, Options{}, ErrExit)
	if e.ExitCode != 3 || !strings.Contains(e.Stderr, `parsing "garbage"`) {
		t.Fatalf("exit code %d, stderr %q", e.ExitCode, e.Stderr)
	}
	if strings.ContainsRune(e.Error(), '\033') {
		t.Errorf("error %q carries a raw escape sequence", e)
	}
	for _, want := range []string{"status 3", `parsing "garbage"`, "environment variables"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("error %q does not mention %q", e, want)
		}
	}
}

func TestLoadKeepsOnlyTheHeadOfAFloodOfStderr(t *testing.T) {
	path := script(t, `i=0; while [ $i -lt 2000 ]; do echo "error line $i" >&2; i=$((i+1)); done; exit 1`)
	e := loadErr(t, context.Background(), path, Options{}, ErrExit)
	if len(e.Stderr) > stderrLimit+16 || !strings.HasPrefix(e.Stderr, "error line 0") || !strings.HasSuffix(e.Stderr, "[...]") {
		t.Fatalf("stderr kept %d bytes: %.80q...", len(e.Stderr), e.Stderr)
	}
}

func TestLoadReportsABinaryKilledByASignal(t *testing.T) {
	path := script(t, `kill -9 $$`)
	e := loadErr(t, context.Background(), path, Options{}, ErrExit)
	if e.Signal != "killed" || e.ExitCode != -1 || !strings.Contains(e.Error(), "killed by signal") {
		t.Fatalf("signal %q, exit %d, error %q", e.Signal, e.ExitCode, e)
	}
}

func TestLoadRejectsOutputThatIsNotJSON(t *testing.T) {
	for name, body := range map[string]string{
		"usage text":    `echo "usage: tool [<flags>] <command>"`,
		"nothing":       `exit 0`,
		"trailing data": `echo '{"name":"a"}'; echo 'extra'`,
		"not a model":   `echo '[1,2,3]'`,
	} {
		t.Run(name, func(t *testing.T) {
			e := loadErr(t, context.Background(), script(t, body), Options{}, ErrNotJSON)
			if !strings.Contains(e.Error(), "is it a fisk application?") {
				t.Errorf("error %q does not say what to do", e)
			}
		})
	}
}

func TestLoadFailsWholeLoadWhenALeafHasNoSchema(t *testing.T) {
	path := script(t, `echo '{"name":"old","commands":[{"name":"ok","schema":{},"restricted_schema":{}},{"name":"auth","commands":[{"name":"add"}]}]}'`)
	e := loadErr(t, context.Background(), path, Options{}, ErrFiskTooOld)
	if e.Command != "auth add" {
		t.Fatalf("command = %q", e.Command)
	}
	for _, want := range []string{`"auth add"`, "needs fisk >= v0.9.0"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("error %q does not mention %q", e, want)
		}
	}
}

func TestLoadRejectsADocumentOverSixteenMiB(t *testing.T) {
	// Valid JSON, so the rejection is about size alone.
	path := script(t, fmt.Sprintf(`printf '{"name":"big","help":"'; head -c %d /dev/zero | tr '\0' a; printf '"}\n'`, MaxDocument+1))
	e := loadErr(t, context.Background(), path, Options{}, ErrTooLarge)
	if e.Limit != MaxDocument || !strings.Contains(e.Error(), "exceeded 16 MiB") {
		t.Fatalf("limit %d, error %q", e.Limit, e)
	}
}

func TestLoadAcceptsADocumentJustUnderTheLimit(t *testing.T) {
	path := script(t, `printf '{"name":"big","help":"'; head -c 1000 /dev/zero | tr '\0' a; printf '"}\n'`)
	if _, err := Load(context.Background(), path, Options{MaxBytes: 1000 + 26}); err != nil {
		t.Fatal(err)
	}
}

func TestLoadAppliesMaxBytesToTheRealFixture(t *testing.T) {
	loadErr(t, context.Background(), fixtureBin, Options{MaxBytes: 1 << 10}, ErrTooLarge)
}

func TestLoadReportsAHungBinaryAfterTheTimeout(t *testing.T) {
	e := loadErr(t, context.Background(), script(t, `exec sleep 600`), Options{Timeout: 100 * time.Millisecond}, ErrTimeout)
	if e.Timeout != 100*time.Millisecond || !strings.Contains(e.Error(), "no answer within 100ms") {
		t.Fatalf("timeout %v, error %q", e.Timeout, e)
	}
}

func TestLoadHonoursTheCallersDeadlineOverItsDefault(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	e := loadErr(t, ctx, script(t, `exec sleep 600`), Options{Timeout: time.Hour}, ErrTimeout)
	if e.Timeout != 0 || !strings.Contains(e.Error(), "before the deadline") {
		t.Fatalf("timeout %v, error %q", e.Timeout, e)
	}
}

func TestLoadReportsACancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, fixtureBin, Options{})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrNotExecutable) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestLoadGivesTheChildTheGivenEnvironmentInsteadOfTheServers(t *testing.T) {
	path := script(t, `printf '{"name":"%s-%s"}\n' "${FISK_MCP_A:-unset}" "${FISK_MCP_B:-unset}"`)
	t.Setenv("FISK_MCP_B", "inherited")
	app, err := Load(context.Background(), path, Options{Env: []string{"FISK_MCP_A=given"}})
	if err != nil {
		t.Fatal(err)
	}
	if app.Name != "given-unset" {
		t.Fatalf("with Env: name = %q, want given-unset", app.Name)
	}
	app, err = Load(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if app.Name != "unset-inherited" {
		t.Fatalf("with nil Env: name = %q, want unset-inherited", app.Name)
	}
}

// The child runs with collection off until a soft limit, as a one-shot
// run of a Go program; an environment that says either itself is kept as
// it is, the other variable not added, and the caller's slice untouched.
func TestLoadRunsTheChildWithOneShotGCSettingsUnlessTheEnvironmentHasItsOwn(t *testing.T) {
	path := script(t, `printf '{"name":"gogc=%s memlimit=%s"}\n' "${GOGC:-unset}" "${GOMEMLIMIT:-unset}"`)
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"A=1"}, "gogc=off memlimit=128MiB"},
		{[]string{"GOGC=50"}, "gogc=50 memlimit=unset"},
		{[]string{"GOMEMLIMIT=1GiB"}, "gogc=unset memlimit=1GiB"},
	} {
		given := append(make([]string, 0, 8), c.env...)
		app, err := Load(context.Background(), path, Options{Env: given})
		if err != nil {
			t.Fatal(err)
		}
		if app.Name != c.want {
			t.Errorf("env %q: the child saw %q, want %q", c.env, app.Name, c.want)
		}
		if len(given) != len(c.env) || given[:cap(given)][len(c.env)] != "" {
			t.Errorf("env %q: Load wrote into the caller's slice", c.env)
		}
	}
}

func TestLoadPassesTheEnvironmentToTheRealFixture(t *testing.T) {
	app, err := Load(context.Background(), fixtureBin, Options{Env: []string{"FISK_FIXTURE_SYNTHETIC=3"}})
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := Walk(app)
	if err != nil || len(leaves) != 3 || leaves[2].Name() != "group0000_cmd0002" {
		t.Fatalf("leaves = %v, %v", leaves, err)
	}
}
