package server

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/fisk-mcp/fisk-mcp/discovery"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CommandResult is the envelope every command tool returns, as
// structuredContent and as the same JSON in a text block. A non-zero exit is
// a normal result: the model reads ExitCode.
type CommandResult struct {
	// Command is the command line that ran: quoted, escaped and redacted.
	Command string `json:"command"`
	// ExitCode is the process's exit code, -1 when a signal ended it.
	ExitCode int `json:"exit_code"`
	// Signal names the signal that ended the process, when one did.
	Signal string `json:"signal,omitempty"`
	// Output is stdout and stderr interleaved, head and tail kept within
	// the capture limit.
	Output string `json:"output"`
	// Truncated reports whether the middle of the output was dropped.
	Truncated bool `json:"truncated"`
	// BytesTotal counts every byte the command wrote.
	BytesTotal int64 `json:"bytes_total"`
	// DurationMS is the run's wall time in milliseconds.
	DurationMS int64 `json:"duration_ms"`
}

// commandOutputSchema is the output schema advertised for command tools; it
// describes CommandResult.
func commandOutputSchema() map[string]any {
	prop := func(typ, desc string) map[string]any {
		return map[string]any{"type": typ, "description": desc}
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command":     prop("string", "The command line that ran (quoted, escaped, secrets redacted)."),
			"exit_code":   prop("integer", "The exit code; -1 when a signal ended the process."),
			"signal":      prop("string", "The signal that ended the process, if any."),
			"output":      prop("string", "stdout and stderr interleaved; when truncated, the head and tail with a marker between."),
			"truncated":   prop("boolean", "Whether the middle of the output was dropped."),
			"bytes_total": prop("integer", "Every byte the command wrote."),
			"duration_ms": prop("integer", "Wall time in milliseconds."),
		},
		"required":             []any{"command", "exit_code", "output", "truncated", "bytes_total", "duration_ms"},
		"additionalProperties": false,
	}
}

// returnsCommandResult reports whether t's outcomes are command envelopes.
// Only tools that present themselves as commands promise that; an in-process
// tool's output is its own JSON and gets no output schema.
func returnsCommandResult(t exposure.Tool) bool {
	d, ok := t.(exposure.Describer)
	return ok && d.Presentation() == exposure.PresentationCommand
}

// titleOf is the human title: the command path for fisk tools, else the name.
func titleOf(t exposure.Tool) string {
	if s, ok := t.(exposure.Sourced); ok && s.Title() != "" {
		return s.Title()
	}
	return t.Name()
}

// descriptor builds the MCP tool descriptor the SDK registers for t; with
// outputSchema, a command tool advertises the CommandResult envelope (see
// Config.OutputSchema).
//
// The input schema is encoded once, here, as the SDK encodes messages (no
// HTML escaping), so the registration key, the SDK's own checks in AddTool
// and every tools/list copy bytes instead of walking the map again.
//
// The annotations say each thing once, to keep tools/list light: the title
// is the tool's own (annotations.title only repeats it for clients older
// than protocol 2025-06-18), and a read-only tool sends no destructiveHint,
// which the protocol gives meaning only when readOnlyHint is false; its
// default (destructive) is the conservative reading for a client that
// ignores that. readOnlyHint and openWorldHint are always sent, and
// idempotentHint only when true (see wireAnnotations).
func descriptor(t exposure.Tool, outputSchema bool) *mcp.Tool {
	b := exposure.BehaviorOf(t)
	desc := &mcp.Tool{
		Name:        t.Name(),
		Title:       titleOf(t),
		Description: t.ModelDescription(),
		InputSchema: inputSchema(t),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: b.ReadOnly, IdempotentHint: b.Idempotent, OpenWorldHint: &b.OpenWorld},
	}
	desc.Meta = discovery.VendorMeta(t, desc.Title)
	if !b.ReadOnly {
		desc.Annotations.DestructiveHint = &b.Destructive
	}
	if outputSchema && returnsCommandResult(t) {
		desc.OutputSchema = commandOutputSchema()
	}
	return desc
}

// inputSchema is t's input schema in the JSON encoding the SDK sends (see
// encodedSchema), read without a copy when t lends it.
func inputSchema(t exposure.Tool) any {
	if r, ok := t.(exposure.SchemaReader); ok {
		var encoded any
		r.ReadInputSchema(func(s map[string]any) {
			if raw, ok := encodedSchema(s).(json.RawMessage); ok {
				encoded = raw
			}
		})
		if encoded != nil {
			return encoded
		}
	}
	return encodedSchema(t.InputSchema())
}

// encodedSchema is s in the JSON encoding the SDK sends; s itself when it
// does not encode, so that AddTool reports the problem. A schema of
// decoded JSON values is written by appendJSON, in the same bytes.
func encodedSchema(s map[string]any) any {
	if raw, ok := appendJSON(make([]byte, 0, 1024), s); ok {
		return json.RawMessage(raw)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return s
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// encodeListed is encodeTool(d) for a descriptor as descriptor builds it,
// written without encoding/json: its input schema is already encoded, and
// encoding/json would scan those bytes again (it scans every
// json.RawMessage it writes) and reach the rest by reflection, which on a
// large set costs as much as encoding the schemas. The bytes are
// encodeTool's: members in the order encoding/json writes mcp.Tool's
// fields and then wireTool's annotations, each left out where it leaves
// it out. A descriptor holding what this does not write (icons, a schema
// not yet encoded, a _meta or output schema of other Go types) is encoded
// by encodeTool.
func encodeListed(d *mcp.Tool) (json.RawMessage, error) {
	var size int // enough for most, so that the bytes a listing keeps are about what they hold
	if raw, ok := d.InputSchema.(json.RawMessage); ok {
		size = len(raw) + len(d.Description) + len(d.Title) + 256
	}
	if out, ok := appendListed(make([]byte, 0, size), d); ok {
		return out, nil
	}
	return encodeTool(d)
}

func appendListed(out []byte, d *mcp.Tool) ([]byte, bool) {
	schema, ok := d.InputSchema.(json.RawMessage)
	if !ok || len(schema) == 0 || len(d.Icons) > 0 {
		return nil, false
	}
	out = append(out, '{')
	if len(d.Meta) > 0 {
		out = append(out, `"_meta":`...)
		if out, ok = appendJSON(out, map[string]any(d.Meta)); !ok {
			return nil, false
		}
		out = append(out, ',')
	}
	if d.Description != "" {
		out = append(appendJSONString(append(out, `"description":`...), d.Description), ',')
	}
	out = append(append(out, `"inputSchema":`...), schema...)
	out = appendJSONString(append(out, `,"name":`...), d.Name)
	if d.OutputSchema != nil {
		if out, ok = appendJSON(append(out, `,"outputSchema":`...), d.OutputSchema); !ok {
			return nil, false
		}
	}
	if d.Title != "" {
		out = appendJSONString(append(out, `,"title":`...), d.Title)
	}
	if a := d.Annotations; a != nil {
		// wireAnnotations' members, in its order.
		out = append(out, `,"annotations":{`...)
		if a.DestructiveHint != nil {
			out = append(strconv.AppendBool(append(out, `"destructiveHint":`...), *a.DestructiveHint), ',')
		}
		if a.IdempotentHint {
			out = append(out, `"idempotentHint":true,`...)
		}
		if a.OpenWorldHint != nil {
			out = append(strconv.AppendBool(append(out, `"openWorldHint":`...), *a.OpenWorldHint), ',')
		}
		out = strconv.AppendBool(append(out, `"readOnlyHint":`...), a.ReadOnlyHint)
		if a.Title != "" {
			out = appendJSONString(append(out, `,"title":`...), a.Title)
		}
		out = append(out, '}')
	}
	return append(out, '}'), true
}

// registrationKey is a descriptor (as listed, or as registered in full
// with the SDK) in its JSON encoding: a republished tool with the same key
// is already served as it is, and one with another key is registered
// again, which is what tells clients the list changed. It is the encoding
// itself, not a hash of it, since clients receive that encoding. Contrast the tool set's descriptor hash, which tells a reload's
// changes apart before any descriptor is built, and the binding a call is
// checked against, which also covers the binary.
func registrationKey(t *mcp.Tool) string {
	b, err := json.Marshal(t)
	if err != nil {
		// A descriptor that cannot be encoded can never equal another:
		// re-register it and let the SDK report the problem.
		return ""
	}
	return string(b)
}
