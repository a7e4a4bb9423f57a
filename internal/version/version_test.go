package version

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionPrefersTheStampThenTheModuleThenTheCommit(t *testing.T) {
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-12-07T00:00:00Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	platform := "; " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	for _, c := range []struct {
		name, stamped string
		bi            *debug.BuildInfo
		want          string
	}{
		{"stamped", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-x"}, Settings: vcs("false")},
			"v1.2.3 (commit 0123456789ab, 2026-12-07T00:00:00Z" + platform},
		{"go install of a tagged module", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}},
			"v1.4.0 (no commit recorded: built outside a git checkout, or with -buildvcs=false" + platform},
		{"checkout with changes", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")},
			"devel-0123456789ab-dirty (commit 0123456789ab with uncommitted changes, 2026-12-07T00:00:00Z" + platform},
		{"checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")},
			"devel-0123456789ab (commit 0123456789ab, 2026-12-07T00:00:00Z" + platform},
		{"nothing recorded", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			"devel (no commit recorded: built outside a git checkout, or with -buildvcs=false" + platform},
		{"no build information", "", nil,
			"devel (no commit recorded: built outside a git checkout, or with -buildvcs=false" + platform},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fromBuildInfo(c.stamped, c.bi).String(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// A fisk-mcp built with plain `go build` reports what the toolchain
// recorded in it: the checkout's commit when built in a git clone. (One
// stamped as the Makefile does is checked by make release-check.)
func TestBuiltBinaryReportsWhatItsBuildRecorded(t *testing.T) {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatal(err)
	}
	src := strings.TrimSpace(string(root))
	bin := filepath.Join(t.TempDir(), "fisk-mcp")
	build := exec.Command("go", "build", "-o", bin, "./cmd/fisk-mcp")
	build.Dir = src
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=auto")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("fisk-mcp version: %v", err)
	}
	got := strings.TrimSuffix(string(out), "\n")
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if want := "fisk-mcp " + fromBuildInfo("", bi).String(); got != want {
		t.Errorf("fisk-mcp version says %s\nits build recorded    %s", got, want)
	}
	// Go records the commit in a clone, not in a linked worktree (whose
	// .git is a file).
	if fi, err := os.Stat(filepath.Join(src, ".git")); err == nil && fi.IsDir() {
		head, err := exec.Command("git", "-C", src, "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, "commit "+string(head[:12])) {
			t.Errorf("fisk-mcp version in a clone says %s, want commit %s", got, head[:12])
		}
	}
}
