package execrunner_test

import (
	"context"
	"fmt"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
)

func ExampleRun() {
	res, err := execrunner.Run(context.Background(), execrunner.Command{
		Path: "/bin/echo",
		Args: []string{"hello", "$(not a shell)"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("exit %d: %s", res.ExitCode, res.Output)
	// Output: exit 0: hello $(not a shell)
}

func ExampleDisplayCommandLine() {
	fmt.Println(execrunner.DisplayCommandLine("/usr/bin/nats", []string{
		"pub", "orders", "it's fine\n\x1b[1A\x1b[2KApprove? yes",
	}))
	// Output: /usr/bin/nats pub orders $'it\'s fine\n\x1b[1A\x1b[2KApprove? yes'
}

func ExampleRingBuffer() {
	b := execrunner.NewRingBuffer(8)
	fmt.Fprint(b, "first line, much in between, last")
	fmt.Printf("%q, %d bytes in all\n", b.String(), b.Total())
	// Output: "firs\n[... 25 bytes dropped ...]\nlast", 33 bytes in all
}
