package clients_test

import (
	"fmt"

	"github.com/fisk-mcp/fisk-mcp/clients"
)

func ExampleRender() {
	out, err := clients.Render("claude-code", clients.Launch{
		Name:    "nats",
		Command: "/usr/local/bin/fisk-mcp",
		Args:    []string{"serve", "--confirm-tag=impact:rw", "/usr/bin/nats"},
		Env:     map[string]string{"NATS_CONTEXT": "prod"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Print(out)
	fmt.Println(clients.Hints["claude-code"])
	// Output:
	// claude mcp add nats --transport stdio --env=NATS_CONTEXT=prod -- /usr/local/bin/fisk-mcp serve --confirm-tag=impact:rw /usr/bin/nats
	// run this command (add --scope user after the name to use the server in every project)
}
