package server

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireAnnotations are a tool's annotations as this server sends them. The
// SDK writes idempotentHint even when it is false, the protocol's default,
// which a client reads the same as no hint at all; on a list of a few
// hundred tools that is kilobytes every client parses, so a false
// idempotentHint is left out. Every other hint is written as the SDK
// writes it: readOnlyHint always (tool directories require it), and
// destructiveHint and openWorldHint whenever the descriptor sets them, as
// a client may read their absence as false rather than as the protocol's
// default of true.
type wireAnnotations mcp.ToolAnnotations

func (a *wireAnnotations) MarshalJSON() ([]byte, error) {
	type hints struct {
		DestructiveHint *bool  `json:"destructiveHint,omitempty"`
		IdempotentHint  bool   `json:"idempotentHint,omitempty"`
		OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
		ReadOnlyHint    bool   `json:"readOnlyHint"`
		Title           string `json:"title,omitempty"`
	}
	return encode(hints(*a))
}

// wireTool is a descriptor as sent: the SDK's, with wireAnnotations.
type wireTool struct {
	*mcp.Tool
	Annotations *wireAnnotations `json:"annotations,omitempty"`
}

// wireList is a tools/list result as sent. It carries the SDK's result
// (its _meta, cursor and cache fields, and the methods that make it a
// result) and only encodes the tools otherwise: each one already in its
// wire encoding, which a published set holds for its listed tools (see
// listingOf), so a list encodes them once, not on every tools/list of
// every session.
type wireList struct {
	*mcp.ListToolsResult
	Tools []json.RawMessage `json:"tools"`
}

// onTheWire is res as this server sends it. encoded holds the wire
// encoding of descriptors already encoded; any other is encoded now.
func onTheWire(res *mcp.ListToolsResult, encoded map[*mcp.Tool]json.RawMessage) (*wireList, error) {
	out := make([]json.RawMessage, len(res.Tools))
	for i, t := range res.Tools {
		raw, ok := encoded[t]
		if !ok {
			var err error
			if raw, err = encodeTool(t); err != nil {
				return nil, fmt.Errorf("server: encoding tool %q for tools/list: %w", t.Name, err)
			}
		}
		out[i] = raw
	}
	return &wireList{ListToolsResult: res, Tools: out}, nil
}

// encodeTool is t's wire encoding: the SDK's, with wireAnnotations.
func encodeTool(t *mcp.Tool) (json.RawMessage, error) {
	return encode(wireTool{Tool: t, Annotations: (*wireAnnotations)(t.Annotations)})
}

func wireTools(tools []*mcp.Tool) []wireTool {
	out := make([]wireTool, len(tools))
	for i, t := range tools {
		out[i] = wireTool{Tool: t, Annotations: (*wireAnnotations)(t.Annotations)}
	}
	return out
}

// EncodeTools is the "tools" array of a tools/list result, tools being
// that result's (from [ListTools] or a client), in the bytes this server
// sends: what a client receives, for a caller that weighs a list. The
// SDK's own encoding of the same tools differs (see the annotations).
func EncodeTools(tools []*mcp.Tool) ([]byte, error) {
	return encode(wireTools(tools))
}

// encode is v in JSON as the SDK sends messages: without HTML escaping, so
// a description's "<" and "&" stay one byte each.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
