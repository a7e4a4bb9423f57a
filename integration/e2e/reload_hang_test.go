package e2e

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A replacement that hangs when introspected holds up no one: the old
// tools stay listed while it hangs, and when the client leaves, fisk-mcp
// exits and leaves no introspection of it running (it would hang on
// after the server, which alone enforces the introspection's timeout).
func TestHangingReplacementKeepsServingAndIsKilledAtExit(t *testing.T) {
	dir := t.TempDir()
	app := installApp(t, dir, "tool", syntheticApp(2))
	s := startStdio(t, client{protocol: legacyProtocol}, "--watch", app)
	pidFile := filepath.Join(t.TempDir(), "pid")
	installApp(t, dir, "tool", func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "#!/bin/sh\necho $$ > %s.tmp && mv %s.tmp %s\nexec sleep 1000\n", pidFile, pidFile, pidFile)
		return err
	})
	waitFor(t, "the hanging introspection to start", func() bool { return fileReady(pidFile) })
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, s.cs); strings.Join(got, ",") != "group0000_cmd0000,group0000_cmd0001" {
		t.Errorf("tools while a reload hangs: %v", got)
	}
	if err := s.cs.Close(); err != nil && !isExit(err) {
		t.Logf("closing: %v", err)
	}
	waitFor(t, "fisk-mcp to exit", func() bool { return s.cmd.ProcessState != nil || !alive(s.cmd.Process.Pid) })
	waitFor(t, "the hanging introspection to be killed", func() bool { return !alive(pid) })
}
