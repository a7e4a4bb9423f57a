package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/internal/ident"
)

// MaxToolName is the longest tool name LLM tool APIs accept.
const MaxToolName = 64

// ErrInvalidDescriptor matches every error of ValidateDescriptor.
var ErrInvalidDescriptor = errors.New("invalid tool descriptor")

// ToolName returns name unchanged when it fits ^[A-Za-z0-9_-]{1,64}$.
// Otherwise every other character becomes "_" and the result is cut to fit
// with a "_" and 8 hex digits of the SHA-256 of the original name appended:
// deterministic across runs and machines, and two different long names
// sharing a prefix still get different tool names.
func ToolName(name string) string {
	if ident.Valid(name, MaxToolName) {
		return name
	}
	clean := []byte(strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, name))
	sum := sha256.Sum256([]byte(name))
	tag := hex.EncodeToString(sum[:4])
	if keep := MaxToolName - 1 - len(tag); len(clean) > keep {
		clean = clean[:keep]
	}
	return string(clean) + "_" + tag
}

// DescriptionFor returns help, or when help is blank a description derived
// from the command path, so that no tool is ever served without one.
func DescriptionFor(path []string, help string) string {
	if h := strings.TrimSpace(help); h != "" {
		return h
	}
	return fmt.Sprintf("Runs the %q command.", strings.Join(path, " "))
}

// ValidateDescriptor checks what a client will be shown for a tool before
// it can be served: a name fitting ^[A-Za-z0-9_-]{1,64}$, a non-blank
// description, and an input schema that is an object with root type
// "object" (with an object of properties when it has any). The error lists
// every problem and matches ErrInvalidDescriptor.
func ValidateDescriptor(name, description string, inputSchema map[string]any) error {
	var problems []string
	if !ident.Valid(name, MaxToolName) {
		problems = append(problems, "the name must be 1 to 64 characters from A-Z a-z 0-9 _ - (see ToolName)")
	}
	if strings.TrimSpace(description) == "" {
		problems = append(problems, "the description is empty")
	}
	switch {
	case inputSchema == nil:
		problems = append(problems, "the input schema is missing")
	case inputSchema["type"] == nil:
		problems = append(problems, `the input schema has no root type; it must be "object"`)
	case inputSchema["type"] != "object":
		problems = append(problems, fmt.Sprintf(`the input schema's root type must be "object", not %v`, display(inputSchema["type"])))
	default:
		if props, ok := inputSchema["properties"]; ok {
			if _, isObj := props.(map[string]any); !isObj {
				problems = append(problems, `the input schema's "properties" must be an object`)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w %q: %s", ErrInvalidDescriptor, name, strings.Join(problems, "; "))
	}
	return nil
}
