package exposure_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/fixture/app"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

var (
	fixtureBin string // the fixture fisk binary, built once
	fixtureDoc []byte // its --fisk-introspect document
)

func TestMain(m *testing.M) {
	testsupport.Main(m, func(s *testsupport.Setup) (err error) {
		if fixtureBin, err = s.Fixture(); err != nil {
			return err
		}
		fixtureDoc, err = introspectDoc(fixtureBin, nil)
		return err
	})
}

// introspectDoc runs the binary's introspection with extra environment.
func introspectDoc(bin string, env []string) ([]byte, error) {
	cmd := exec.Command(bin, "--fisk-introspect")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("introspecting %s: %w", bin, err)
	}
	return out, nil
}

var synthetic = sync.OnceValues(func() ([]byte, error) {
	return introspectDoc(fixtureBin, []string{fmt.Sprintf("%s=%d", app.SyntheticEnv, 1000)})
})

// fixtureModel decodes a fresh copy of the fixture's model, safe to modify.
func fixtureModel(t testing.TB) *fisk.ApplicationModel {
	t.Helper()
	m, err := introspect.Decode(fixtureDoc)
	if err != nil {
		t.Fatalf("decoding the fixture document: %v", err)
	}
	return m
}

// fixtureApp is the fixture as one loaded application.
func fixtureApp(t testing.TB, prefix string) exposure.LoadedApp {
	return exposure.LoadedApp{App: exposure.App{Prefix: prefix, Path: fixtureBin}, Model: fixtureModel(t)}
}

// build builds the fixture alone under p and fails the test on error.
func build(t testing.TB, p exposure.Policy) *exposure.ToolSet {
	t.Helper()
	set, err := exposure.Build([]exposure.LoadedApp{fixtureApp(t, "")}, nil, p)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return set
}

func names(s *exposure.ToolSet) []string {
	var out []string
	for _, t := range s.Tools() {
		out = append(out, t.Name())
	}
	return out
}

func mustLookup(t testing.TB, s *exposure.ToolSet, name string) exposure.Tool {
	t.Helper()
	tool, ok := s.Lookup(name)
	if !ok {
		t.Fatalf("tool %q not in set %v", name, names(s))
	}
	return tool
}

// findCommand returns the command at path in m.
func findCommand(t testing.TB, m *fisk.ApplicationModel, path ...string) *fisk.CmdModel {
	t.Helper()
	cmds := m.Commands
	var found *fisk.CmdModel
	for _, name := range path {
		i := slices.IndexFunc(cmds, func(c *fisk.CmdModel) bool { return c.Name == name })
		if i < 0 {
			t.Fatalf("no command %v in the fixture", path)
		}
		found = cmds[i]
		if found.CmdGroupModel != nil {
			cmds = found.Commands
		} else {
			cmds = nil
		}
	}
	return found
}

var background = context.Background()
