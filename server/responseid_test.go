package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sdkLines are lines as the SDK writes them, and lines of other shapes.
var sdkLines = []string{
	`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`,
	`{"jsonrpc":"2.0","id":0,"result":{}}`,
	`{"jsonrpc":"2.0","id":-7,"error":{"code":-32602,"message":"invalid params"}}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`,
	`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{"jsonrpc":"2.0","id":"abc","result":{}}`,
	`{"jsonrpc":"2.0","id":"a\"b\u00fc\\","result":{}}`,
	`{"jsonrpc":"2.0","id":"","result":{}}`,
	`{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
	`{"jsonrpc":"2.0","id":true,"result":{}}`,
	`{"jsonrpc":"2.0","id":4 ,"result":{}}`,
	`{"jsonrpc":"2.0","id":4,"resultx":{}}`,
	`{"jsonrpc":"2.0","id":4`,
	`{"id":5,"jsonrpc":"2.0","result":{}}`,
	`[{"jsonrpc":"2.0","id":6,"result":{}}]`,
	`{"jsonrpc":"2.0","id":1e999,"result":{}}`,
	`{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 4096) + `","result":{"big":"` + strings.Repeat("y", 1<<16) + `"}}`,
}

// responseID must agree with decoding the line whole, the reading it
// shortcuts: wherever it reads the id of a line of JSON (every line the
// server writes is), that id is the only response the line decodes to.
// It must also read the lines the SDK writes for its responses, or it
// shortcuts nothing.
func TestResponseIDAgreesWithTheWholeDecoding(t *testing.T) {
	read := 0
	for _, line := range sdkLines {
		id, ok := responseID([]byte(line))
		if !ok {
			continue
		}
		read++
		if err := agreesWithDecoding(line, id); err != "" {
			t.Errorf("%.80s: %s", line, err)
		}
	}
	if read < 9 {
		t.Errorf("read the id of %d lines, want every SDK response (9)", read)
	}
}

func agreesWithDecoding(line string, id jsonrpc.ID) string {
	msgs := decodeLine([]byte(line))
	if len(msgs) != 1 {
		return "read an id where the whole decoding finds " + string(rune('0'+len(msgs))) + " messages"
	}
	resp, ok := msgs[0].(*jsonrpc.Response)
	if !ok {
		return "read an id of a line that is no response"
	}
	if resp.ID != id {
		return "read a different id from the whole decoding's"
	}
	return ""
}

func FuzzResponseID(f *testing.F) {
	for _, line := range sdkLines {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !json.Valid([]byte(line)) {
			return // never written: see responseID
		}
		if id, ok := responseID([]byte(line)); ok {
			if err := agreesWithDecoding(line, id); err != "" {
				t.Errorf("%q: %s", line, err)
			}
		}
	})
}
