package exposure_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

func ExampleParseApp() {
	app, err := exposure.ParseApp("nats=/usr/local/bin/nats")
	if err != nil {
		panic(err)
	}
	fmt.Printf("prefix %q, path %q\n", app.Prefix, app.Path)
	// Output: prefix "nats", path "/usr/local/bin/nats"
}

func ExampleNewCustomTool() {
	tool, err := exposure.NewCustomTool(exposure.CustomSpec{
		Name:        "server_time",
		Description: "Reports the server's time zone",
		InputSchema: map[string]any{"type": "object", "additionalProperties": false},
		Fn: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"zone":"UTC"}`), nil
		},
		Kind:     exposure.KindBuiltin,
		Behavior: &exposure.Behavior{ReadOnly: true, Idempotent: true},
	})
	if err != nil {
		panic(err)
	}
	call, err := tool.Prepare(json.RawMessage(`{}`))
	if err != nil {
		panic(err)
	}
	_, isCommand := call.Command()
	out, err := call.Run(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out.Output), !isCommand)

	_, err = exposure.NewCustomTool(exposure.CustomSpec{
		Name: "remote_delete", Description: "Deletes remotely", Kind: exposure.KindRemote, Confirm: true,
		InputSchema: map[string]any{"type": "object"},
		Fn:          func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil },
	})
	fmt.Println(err)
	// Output:
	// {"zone":"UTC"} true
	// custom tool "remote_delete": a remote or MCP-backed tool may not declare a confirm gate
}
