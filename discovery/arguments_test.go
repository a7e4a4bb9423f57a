package discovery

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Arguments removes the keys clients add to every tool from the top level
// only, unless the tool declares them, and leaves every other byte.
func TestArgumentsRemoveTheKeysClientsAddUnlessDeclared(t *testing.T) {
	declared := func(key string) bool { return key == "wait_for_previous" }
	for _, tc := range []struct {
		name, in, want string
		declares       func(string) bool
	}{
		{"absent", ``, `{}`, nil},
		{"null", `null`, `{}`, nil},
		{"only the added key", `{"wait_for_previous": true}`, `{}`, nil},
		{"removed, the rest kept", `{"a": 1, "wait_for_previous": false, "b": {"wait_for_previous": 1}}`, `{"a":1,"b":{"wait_for_previous": 1}}`, nil},
		{"repeated keys are kept for validation to refuse", `{"a":1,"a":2,"wait_for_previous":true}`, `{"a":1,"a":2}`, nil},
		{"declared by the tool", `{"wait_for_previous": true}`, `{"wait_for_previous": true}`, declared},
		{"nothing to remove: the bytes as sent", `{ "a" : 1 }`, `{ "a" : 1 }`, nil},
		{"inside an executor's arguments", `{"name":"x","arguments":{"wait_for_previous":true}}`, `{"name":"x","arguments":{"wait_for_previous":true}}`, nil},
		{"not an object", `[1]`, `[1]`, nil},
		{"malformed", `{"wait_for_previous": tru`, `{"wait_for_previous": tru`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t", Arguments: json.RawMessage(tc.in)}}
			if got := string(Arguments(nil, req, tc.declares)); got != tc.want {
				t.Errorf("Arguments(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}
