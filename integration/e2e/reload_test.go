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
)

// published waits for the first "tool set published" record: the server
// logs none at startup, so it is the first reload's.
func (s *session) published(t *testing.T) map[string]any {
	t.Helper()
	return s.log.waitRecord(t, "for a reloaded set", func(r map[string]any) bool { return r["msg"] == "tool set published" })
}

func strs(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// The reported defect: with two unprefixed apps, b serves
// group0000_cmd0000; a, first on the command line, is upgraded to a
// version that has it too. The name must keep running b's program, and a's
// command must be skipped and logged.
func TestReloadKeepsAServedNameWithItsAppAndSkipsTheNewcomer(t *testing.T) {
	dir := t.TempDir()
	a := installApp(t, dir, "a", copyOf(fixtureBin))
	b := installApp(t, dir, "b", syntheticApp(1))
	s := startStdio(t, client{protocol: modernProtocol}, "--watch", a, b)
	if got := names(t, s.cs); !slices.Contains(got, "group0000_cmd0000") || !slices.Contains(got, "echo") {
		t.Fatalf("before: %v", got)
	}

	installApp(t, dir, "a", syntheticApp(2))
	rec := s.published(t)
	if changed := strs(rec["changed"]); slices.Contains(changed, "group0000_cmd0000") {
		t.Errorf("group0000_cmd0000 changed on reload: %v", rec)
	}
	if added := strs(rec["added"]); !slices.Equal(added, []string{"group0000_cmd0001"}) {
		t.Errorf("added = %v, want only a's new command", added)
	}
	skip := s.log.waitRecord(t, "for the skipped newcomer", func(r map[string]any) bool { return r["msg"] == "tool skipped on reload" })
	if skip["tool"] != "group0000_cmd0000" || !strings.Contains(fmt.Sprint(skip["source"]), a) ||
		!strings.Contains(fmt.Sprint(skip["reason"]), b) || !strings.Contains(fmt.Sprint(skip["reason"]), "was serving it") {
		t.Errorf("skip record = %v, want a's command skipped because b was serving the name", skip)
	}

	res := s.call(t, "group0000_cmd0000", args("name", "x"))
	if res.IsError {
		t.Fatalf("the kept tool failed: %s", text(res))
	}
	if cmd := envelope(t, res).Command; !strings.HasPrefix(cmd, b+" ") && !strings.HasPrefix(cmd, "'"+b+"'") {
		t.Errorf("group0000_cmd0000 ran %q, want b's program %s", cmd, b)
	}
}

// An app replaced while fisk-mcp is introspecting it at startup is served as
// the replacement: its tools never describe one file while running another.
func TestBinaryReplacedDuringStartupServesTheReplacement(t *testing.T) {
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	// The first version waits on the FIFO while it is introspected.
	app := installApp(t, dir, "tool", func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "#!/bin/sh\nif [ \"$1\" = --fisk-introspect ]; then read line < '%s'; fi\nexec '%s' \"$@\"\n", gate, fixtureBin)
		return err
	})
	replaced := make(chan error, 1)
	go func() {
		// Opening the FIFO for writing returns once the app has opened it
		// for reading: the first load is under way.
		f, err := os.OpenFile(gate, os.O_WRONLY, 0)
		if err != nil {
			replaced <- err
			return
		}
		defer f.Close()
		if _, err := install(dir, "tool", syntheticApp(3)); err != nil {
			replaced <- err
			return
		}
		_, err = io.WriteString(f, "go on\n")
		replaced <- err
	}()
	t.Cleanup(func() {
		// If fisk-mcp never opened the FIFO, a reader of our own releases
		// the goroutine.
		if f, err := os.OpenFile(gate, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})

	s := startStdio(t, client{protocol: modernProtocol}, "--watch", app)
	if err := <-replaced; err != nil {
		t.Fatal(err)
	}
	// The load sees the file change under the introspection, introspects
	// again and binds the tools to the replacement, so the tools served
	// describe the program that runs.
	want := []string{"group0000_cmd0000", "group0000_cmd0001", "group0000_cmd0002"}
	if got := names(t, s.cs); !slices.Equal(got, want) {
		t.Errorf("tools = %v, want the replacement's %v", got, want)
	}
}

func TestReloadLeavingAnAppWithoutToolsWarnsAsStartupDoes(t *testing.T) {
	dir := t.TempDir()
	app := installApp(t, dir, "tool", copyOf(fixtureBin))
	s := startStdio(t, client{protocol: modernProtocol}, "--watch", "--include", "^echo$", app)
	installApp(t, dir, "tool", syntheticApp(2))
	rec := s.log.waitRecord(t, "for the warning", func(r map[string]any) bool {
		return r["msg"] == "app exposes no tools; check --include, --exclude and the tag filters"
	})
	if rec["app"] != app || rec["level"] != "WARN" {
		t.Errorf("warning = %v", rec)
	}
	if rec := s.published(t); fmt.Sprint(rec["tools"]) != "0" {
		t.Errorf("published %v, want an empty set", rec)
	}
}
