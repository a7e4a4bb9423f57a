package dbctl

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

const dbctlPackage = "github.com/fisk-mcp/fisk-mcp/internal/testsupport/fixture/cmd/fisk-dbctl"

var (
	toolsFile = filepath.Join("..", "..", "catalog", "testdata", "dbctl_tools.json")
	helpFile  = filepath.Join("..", "..", "catalog", "testdata", "dbctl_help.txt")

	update = flag.Bool("update-dbctl", false, "rewrite "+toolsFile+" and "+helpFile+" from the dbctl build")

	dbctl string
)

// dbctlVisibleLeaves is how many tools dbctl serves: its runnable commands
// less the hidden ones.
const dbctlVisibleLeaves = 90

func TestMain(m *testing.M) {
	testsupport.Main(m, func(s *testsupport.Setup) (err error) {
		dbctl, err = s.Build(dbctlPackage, "dbctl")
		return err
	})
}

// helpEnv is the environment the help is rendered in: a fixed width, and
// none of the variables that switch fisk to its Markdown help for models.
var helpEnv = []string{"COLUMNS=80", "PATH=" + os.Getenv("PATH")}

// The snapshot is the tool set the real build serves, loaded as fisk-mcp
// loads it and made into entries as the nats snapshot is (hidden commands
// left out, no global flags), byte for byte.
func TestToolSnapshotIsWhatTheDbctlBuildServes(t *testing.T) {
	p := exposure.Policy{ReadOnlyTags: []string{"impact:ro"}, ConfirmTags: []string{"impact:rw"}}
	set, err := exposure.Load(t.Context(), []exposure.App{{Path: dbctl}}, nil, p, exposure.LoadOptions{})
	if err != nil {
		t.Fatalf("loading dbctl: %v", err)
	}
	entries := catalog.FromToolSet(set, func(t exposure.Tool) bool {
		c, ok := t.(exposure.Confirmable)
		return !ok || c.NeedsConfirm()
	}, nil)
	if len(entries) != dbctlVisibleLeaves {
		t.Errorf("dbctl serves %d tools, want %d", len(entries), dbctlVisibleLeaves)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name, "debug_") || e.Name == "whoami-raw" {
			t.Errorf("the hidden command %s is served", e.Title)
		}
	}
	checkFile(t, toolsFile, encodeEntries(t, entries))
}

// The help file is what a person reads of dbctl: its usage, then the help
// of every visible command, group or leaf, in the order help lists them,
// each as 'dbctl help COMMAND' prints it (long help, arguments, flags with
// their defaults and choices, aliases), then its cheat sheets. fisk's own
// --help-long leaves out the long help and the arguments' help.
func TestHelpFileIsWhatDbctlPrints(t *testing.T) {
	m, err := introspect.Load(t.Context(), dbctl, introspect.Options{Env: helpEnv})
	if err != nil {
		t.Fatalf("introspecting dbctl: %v", err)
	}
	var b bytes.Buffer
	b.WriteString("$ dbctl --help\n")
	b.Write(help(t, "--help"))
	var walk func(path []string, cmds []*fisk.CmdModel)
	walk = func(path []string, cmds []*fisk.CmdModel) {
		for _, c := range cmds {
			if c.Hidden || c.Name == "cheat" {
				continue
			}
			p := append(path[:len(path):len(path)], c.Name)
			b.WriteString("\n$ dbctl help " + strings.Join(p, " ") + "\n")
			b.Write(help(t, append([]string{"help"}, p...)...))
			if c.CmdGroupModel != nil {
				walk(p, c.Commands)
			}
		}
	}
	walk(nil, m.Commands)
	for _, label := range slices.Sorted(maps.Keys(m.Cheats)) {
		b.WriteString("\n$ dbctl cheat " + label + "\n")
		b.Write(help(t, "cheat", label))
	}
	checkFile(t, helpFile, b.Bytes())
}

// help runs dbctl with args and returns what it printed, on either stream:
// fisk writes usage to standard error.
func help(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), dbctl, args...)
	cmd.Env = helpEnv
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dbctl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// checkFile compares got with the file at path, or rewrites the file
// under -update-dbctl.
func checkFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s (rewrite it with -update-dbctl): %v", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: dbctl changed; rewrite it with go test ./integration/dbctl -update-dbctl and review the diff", path)
	}
}

// encodeEntries writes one entry a line, so that a change of the app
// reads as a diff of the tools it touched.
func encodeEntries(t *testing.T, entries []catalog.Entry) []byte {
	t.Helper()
	b, err := testsupport.JSONLines(entries)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
