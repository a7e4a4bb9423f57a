package procgroup_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"time"

	"github.com/fisk-mcp/fisk-mcp/procgroup"
)

// A caller prepares the command, hands in its sinks and bounds, and reads
// the sinks once Wait has returned.
func ExampleGroup() {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("sh", "-c", "echo answer; echo complaint >&2")
	var g procgroup.Group
	if err := g.Start(cmd, procgroup.Options{Stdout: &stdout, Stderr: &stderr, KillGrace: time.Second, DrainGrace: time.Second}); err != nil {
		fmt.Println(err)
		return
	}
	exit := g.Wait()
	fmt.Printf("err=%v cut=%v stdout=%q stderr=%q\n", exit.Err, exit.OutputCut, stdout.String(), stderr.String())
	// Output: err=<nil> cut=false stdout="answer\n" stderr="complaint\n"
}
