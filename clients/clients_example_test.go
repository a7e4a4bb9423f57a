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

func ExampleAdviseApproval() {
	args := []string{"serve", "--confirm-tag=impact:rw"}
	// Two of the served tools need a person's approval, and the person left
	// --approval at its default.
	for _, client := range []string{"claude-desktop", "vscode"} {
		a := clients.AdviseApproval(client, 2, clients.ApprovalElicit, false)
		fmt.Println(a.Apply(args))
		fmt.Println(a.Note)
	}
	// Output:
	// [serve --confirm-tag=impact:rw --approval=browser]
	// Claude Desktop cannot ask through MCP (it declares no elicitation), so gated tools are approved in your browser (--approval=browser): a page opens on this machine when one is called, and closing it refuses the call
	// [serve --confirm-tag=impact:rw]
	// VS Code asks through MCP elicitation, so gated tools are approved in VS Code itself (--approval elicit, the default)
}
