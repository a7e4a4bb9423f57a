package canonical_test

import (
	"fmt"

	"github.com/fisk-mcp/fisk-mcp/canonical"
)

func ExampleEncoder_JSON() {
	for _, doc := range []string{`{"b": [1, 2.0], "a": "\u00e9"}`, `{"a":"é","b":[1,2.0]}`, `{"a":1,"a":2}`} {
		var e canonical.Encoder
		if err := e.JSON([]byte(doc)); err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(string(e.Bytes()))
	}
	// Output:
	// {"a":"é","b":[1,2.0]}
	// {"a":"é","b":[1,2.0]}
	// error: duplicate object key "a"
}
