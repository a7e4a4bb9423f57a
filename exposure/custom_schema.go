package exposure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fisk-mcp/fisk-mcp/internal/visible"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// inputValidator holds a caller-supplied tool's compiled input schema and
// the canonical JSON it was compiled from.
type inputValidator struct {
	doc      []byte // canonical JSON of the schema
	compiled *jsonschema.Schema
}

// noLoader refuses every external reference: a tool's schema must be
// self-contained, and compiling it must never read files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q is not allowed; inline it", url)
}

func compileInputSchema(name string, s map[string]any) (*inputValidator, error) {
	doc, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("input schema is not JSON: %w", err)
	}
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("input schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := "urn:fisk-mcp:tool:" + name
	if err := c.AddResource(url, parsed); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compiling input schema: %w", err)
	}
	return &inputValidator{doc: doc, compiled: compiled}, nil
}

// schema returns a fresh copy of the schema.
func (v *inputValidator) schema() map[string]any {
	var m map[string]any
	if err := json.Unmarshal(v.doc, &m); err != nil {
		panic(fmt.Sprintf("exposure: canonical schema does not decode: %v", err)) // unreachable: doc came from json.Marshal of an object
	}
	return m
}

// validate checks input (empty means {}) and returns it as compact JSON.
// Failures are *schema.ValidationError, like a command tool's.
func (v *inputValidator) validate(input json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return nil, &schema.ValidationError{Violations: []schema.Violation{{Pointer: "", Message: "arguments are not a single JSON value: " + err.Error()}}}
	}
	if err := v.compiled.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		return nil, &schema.ValidationError{Violations: violations(ve)}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, input); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxViolationMessage bounds, in characters, the message of one violation:
// the library's messages quote the value or the keys they reject whole,
// and a caller may send a value of megabytes or a hundred long keys.
const maxViolationMessage = 300

// violations flattens a jsonschema error into one violation per failing
// keyword, each pointing at the offending value.
func violations(ve *jsonschema.ValidationError) []schema.Violation {
	var out []schema.Violation
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if u.Error != nil && len(u.Errors) == 0 {
			out = append(out, schema.Violation{Pointer: u.InstanceLocation, Message: visible.Cut(u.Error.String(), maxViolationMessage)})
		}
		for _, c := range u.Errors {
			walk(c)
		}
	}
	walk(*ve.BasicOutput())
	if len(out) == 0 {
		out = append(out, schema.Violation{Message: visible.Cut(ve.Error(), maxViolationMessage)})
	}
	return out
}
