package server

import (
	"encoding/json"

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

// descriptor builds the MCP tool descriptor the SDK registers for t.
func descriptor(t exposure.Tool) *mcp.Tool {
	b := exposure.BehaviorOf(t)
	title := titleOf(t)
	desc := &mcp.Tool{
		Name:        t.Name(),
		Title:       title,
		Description: t.ModelDescription(),
		InputSchema: t.InputSchema(),
		Annotations: &mcp.ToolAnnotations{
			Title:           title,
			ReadOnlyHint:    b.ReadOnly,
			DestructiveHint: &b.Destructive,
			IdempotentHint:  b.Idempotent,
			OpenWorldHint:   &b.OpenWorld,
		},
	}
	desc.Meta = vendorMeta(t, title)
	if returnsCommandResult(t) {
		desc.OutputSchema = commandOutputSchema()
	}
	return desc
}

// registrationKey is the descriptor exactly as registered with the SDK, in
// its JSON encoding: a republished tool with the same key is already
// registered as it is, and one with another key is registered again. It is
// the encoding itself, not a hash of it, since the SDK sends clients that
// encoding. Contrast the tool set's descriptor hash, which tells a reload's
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
