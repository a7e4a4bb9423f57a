package e2e

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// installApp writes content to dir/name as an executable, replacing any
// file there by rename, the way a package manager upgrades a binary.
func installApp(t *testing.T, dir, name string, content func(w io.Writer) error) string {
	t.Helper()
	dst, err := install(dir, name, content)
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// install is installApp for goroutines, which may not stop the test.
func install(dir, name string, content func(w io.Writer) error) (string, error) {
	tmp, err := os.CreateTemp(dir, ".install-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	err = content(tmp)
	if err == nil {
		err = tmp.Chmod(0o755)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, name)
	return dst, os.Rename(tmp.Name(), dst)
}

func copyOf(path string) func(io.Writer) error {
	return func(w io.Writer) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}
}

// syntheticApp is a different fisk application in the same place: the
// fixture run with a generated tree of n commands.
func syntheticApp(n int) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "#!/bin/sh\nFISK_FIXTURE_SYNTHETIC=%d exec %s \"$@\"\n", n, fixtureBin)
		return err
	}
}

func names(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, tool.Name)
	}
	slices.Sort(out)
	return out
}

func TestReplacedBinaryIsReloadedAndClientsAreTold(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			dir := t.TempDir()
			app := installApp(t, dir, "tool", copyOf(fixtureBin))
			changed := make(chan struct{}, 8)
			c := client{protocol: proto, listChanged: func() { changed <- struct{}{} }}
			if proto == modernProtocol {
				c.subscribed = make(chan struct{})
			}
			s := startStdio(t, c, "--watch", app)
			if c.subscribed != nil {
				await(t, c.subscribed, "the server to acknowledge the subscription to list changes")
			}
			if got := names(t, s.cs); !slices.Equal(got, fixtureTools) {
				t.Fatalf("before: %v", got)
			}

			installApp(t, dir, "tool", syntheticApp(3))
			// The notification is debounced after each change to the
			// server's list, not sent once the reload is done: on a busy
			// machine it can go out while the new set is still being
			// registered. The reload is logged once the set is in place.
			s.published(t)
			await(t, changed, "the list-changed notification")
			want := []string{"group0000_cmd0000", "group0000_cmd0001", "group0000_cmd0002"}
			if got := names(t, s.cs); !slices.Equal(got, want) {
				t.Fatalf("after: %v, want %v", got, want)
			}
			res := s.call(t, "group0000_cmd0001", args("name", "x"))
			if res.IsError {
				t.Fatalf("a reloaded tool failed: %s", text(res))
			}
			if _, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: args("subject", "x")}); err == nil {
				t.Error("a withdrawn tool is still callable")
			}
		})
	}
}

func TestBrokenReplacementKeepsTheOldTools(t *testing.T) {
	dir := t.TempDir()
	app := installApp(t, dir, "tool", syntheticApp(2))
	s := startStdio(t, client{protocol: modernProtocol}, "--watch", app)
	installApp(t, dir, "tool", func(w io.Writer) error {
		_, err := io.WriteString(w, "#!/bin/sh\necho not a fisk app\n")
		return err
	})
	rec := s.log.waitRecord(t, "for the failed reload", func(r map[string]any) bool { return r["msg"] == "reload failed; the previous tool set stays published" })
	if retry := fmt.Sprint(rec["retry"]); !strings.Contains(retry, "SIGHUP") {
		t.Errorf("the failed reload does not say how to retry: %v", rec)
	}
	if got := names(t, s.cs); !slices.Equal(got, []string{"group0000_cmd0000", "group0000_cmd0001"}) {
		t.Fatalf("tools after a failed reload: %v", got)
	}
}

func TestSIGHUPWithoutWatchShutsDownGracefully(t *testing.T) {
	s := startStdio(t, client{protocol: modernProtocol}, fixtureBin)
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if err := s.cs.Wait(); err != nil && !isExit(err) {
		t.Logf("session ended: %v", err)
	}
	waitFor(t, "fisk-mcp to exit", func() bool { return s.cmd.ProcessState != nil || !alive(s.cmd.Process.Pid) })
}

func TestSIGHUPWithWatchReloadsAndKeepsServing(t *testing.T) {
	s := startStdio(t, client{protocol: modernProtocol}, "--watch", fixtureBin)
	s.log.waitRecord(t, "for the watcher", func(r map[string]any) bool {
		return strings.HasPrefix(fmt.Sprint(r["msg"]), "watching the apps")
	})
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.log.waitRecord(t, "for the SIGHUP reload", func(r map[string]any) bool { return r["msg"] == "tool set published" })
	if got := names(t, s.cs); !slices.Equal(got, fixtureTools) {
		t.Errorf("tools after SIGHUP: %v", got)
	}
}
