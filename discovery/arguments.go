package discovery

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientAddedKeys are the top-level argument keys a client adds to the
// calls of every tool on its own, whatever the tool's input schema says:
// Gemini CLI adds a wait_for_previous parameter to every tool it shows its
// model, and forwards it. A schema that refuses unknown properties would
// refuse every such call, so Arguments removes them, by the key and not by
// the client: nothing else of the schema is loosened.
var clientAddedKeys = []string{"wait_for_previous"}

// Arguments are a tools/call's raw arguments, absent or null meaning the
// empty object: the protocol makes arguments optional, and some clients
// send null for "none"; validation then sees what the client meant.
//
// A top-level key of clientAddedKeys is removed, unless declares (nil for
// a tool that declares no arguments of the kind, such as the discovery
// tools) says the tool has an argument of that name; the removal is logged
// to log at debug (nil: not logged). It is done here, before anything of
// the call is validated, hashed for an approval, displayed or logged, so
// that every later step, on every round of an approval, sees the same
// bytes. Only the top level is touched: the arguments an executor carries
// for the tool it runs are the tool's own.
func Arguments(log *slog.Logger, req *mcp.CallToolRequest, declares func(key string) bool) json.RawMessage {
	if req.Params == nil {
		return json.RawMessage("{}")
	}
	raw := bytes.TrimSpace(req.Params.Arguments)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return json.RawMessage("{}")
	}
	if !slices.ContainsFunc(clientAddedKeys, func(k string) bool { return bytes.Contains(raw, []byte(k)) }) {
		// Nothing to remove, as on nearly every call: no decoding on the
		// call path. A key spelt with escapes is left in, and validation
		// refuses it as it refuses any unknown argument.
		return req.Params.Arguments
	}
	out, dropped := withoutKeys(raw, func(key string) bool {
		return slices.Contains(clientAddedKeys, key) && (declares == nil || !declares(key))
	})
	if len(dropped) > 0 && log != nil {
		log.Debug("removed the arguments the client adds to every tool", "tool", req.Params.Name, "keys", dropped)
	}
	return out
}

// withoutKeys returns the JSON object raw without its top-level members
// whose key drop reports, and the keys removed. Anything else is left as
// it is, repeated keys included (validation refuses them); raw is returned
// as is when nothing is removed or it is no valid object.
func withoutKeys(raw json.RawMessage, drop func(string) bool) (json.RawMessage, []string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return raw, nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	var dropped []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return raw, nil
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return raw, nil
		}
		if drop(key) {
			dropped = append(dropped, key)
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') || dec.More() || len(dropped) == 0 {
		return raw, nil
	}
	b.WriteByte('}')
	return b.Bytes(), dropped
}
