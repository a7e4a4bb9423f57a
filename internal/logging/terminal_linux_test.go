package logging

import (
	"os"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

// TestOnlyATerminalIsTakenForAPerson: a pseudo-terminal is one; the pipe a
// client starts serve with, a file and /dev/null are not.
func TestOnlyATerminalIsTakenForAPerson(t *testing.T) {
	_, pts := testsupport.OpenPTY(t)
	if !IsTerminal(pts) {
		t.Error("a pseudo-terminal is not taken for a terminal")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for name, f := range map[string]*os.File{"pipe": r, "/dev/null": null} {
		if IsTerminal(f) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
}
