package schema_test

import (
	"encoding/json"
	"fmt"

	"github.com/fisk-mcp/fisk-mcp/introspect"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// doc is what `tool --fisk-introspect` prints for a tool with one command,
// "user add", taking a --role enum, a --verbose counter and a name.
const doc = `{"name":"tool","flags":[{"name":"context","help":"Context","required":true}],"commands":[{"name":"user","commands":[{"name":"add","help":"Add a user",
 "flags":[{"name":"role","help":"Role","default":["reader"]},{"name":"verbose","help":"Verbosity","boolean":true,"cumulative":true}],
 "args":[{"name":"name","help":"User name","required":true}],
 "schema":{"type":"object","additionalProperties":false,"required":["name"],"properties":{
   "role":{"type":"string","enum":["reader","admin"],"description":"Role"},
   "verbose":{"type":"array","items":{"type":"integer"},"description":"Verbosity"},
   "name":{"type":"string","description":"User name"}}},
 "restricted_schema":{"type":"object","additionalProperties":false,"required":["name"],"properties":{
   "role":{"type":"string","enum":["reader","admin"],"description":"Role"},
   "verbose":{"type":"array","items":{"type":"integer"},"description":"Verbosity"},
   "name":{"type":"string","description":"User name"}}}}]}]}`

func Example() {
	app, _ := introspect.Decode([]byte(doc))
	leaves, _ := introspect.Walk(app)
	globals, _ := schema.Globals(app, nil) // the required --context is always exposed
	for _, leaf := range leaves {
		cmd, err := schema.NewCommand(leaf.Path, leaf.Command, globals, schema.Restricted)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(schema.ToolName(leaf.Name()))

		argv, _ := cmd.Render(json.RawMessage(`{"name":"--bob","role":"admin","verbose":2,"context":"prod"}`))
		fmt.Printf("%q\n", argv)

		_, err = cmd.Render(json.RawMessage(`{"name":"bob","role":"root","verbose":"lots"}`))
		fmt.Println(err)
	}
	// Output:
	// user_add
	// ["user" "add" "--role=admin" "--verbose" "--verbose" "--context=prod" "--" "--bob"]
	// invalid arguments (3 problems):
	// /context: required property is missing
	// /role: expected one of "reader", "admin", got "root"
	// /verbose: expected integer, got string "lots"
}
