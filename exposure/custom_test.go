package exposure_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

func objectSchema() map[string]any {
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"properties":           map[string]any{"q": map[string]any{"type": "string", "minLength": 1}},
		"required":             []string{"q"},
	}
}

// newCustom fills the unset fields of spec with working values.
func newCustom(t testing.TB, spec exposure.CustomSpec) exposure.Tool {
	t.Helper()
	tool, err := exposure.NewCustomTool(withDefaults(spec))
	if err != nil {
		t.Fatalf("NewCustomTool: %v", err)
	}
	return tool
}

func withDefaults(spec exposure.CustomSpec) exposure.CustomSpec {
	if spec.Name == "" {
		spec.Name = "search"
	}
	if spec.Description == "" {
		spec.Description = "Searches the inventory"
	}
	if spec.InputSchema == nil {
		spec.InputSchema = objectSchema()
	}
	if spec.Fn == nil {
		spec.Fn = func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"echo":` + string(in) + `}`), nil
		}
	}
	return spec
}

func TestCustomToolConstructorEnforcesGateAndExposureRules(t *testing.T) {
	both := &exposure.Exposure{MCP: true, A2A: false}
	cases := []struct {
		label string
		spec  exposure.CustomSpec
		want  error
	}{
		{"remote may not be gated", exposure.CustomSpec{Kind: exposure.KindRemote, Confirm: true}, exposure.ErrGatedRemote},
		{"mcp may not be gated", exposure.CustomSpec{Kind: exposure.KindMCP, Confirm: true}, exposure.ErrGatedRemote},
		{"exposure may not be remote", exposure.CustomSpec{Kind: exposure.KindRemote, Exposure: both}, exposure.ErrExposureRestricted},
		{"exposure may not be mcp", exposure.CustomSpec{Kind: exposure.KindMCP, Exposure: both}, exposure.ErrExposureRestricted},
		{"exposure may not be gated", exposure.CustomSpec{Confirm: true, Exposure: both}, exposure.ErrExposureRestricted},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			_, err := exposure.NewCustomTool(withDefaults(c.spec))
			if !errors.Is(err, c.want) {
				t.Errorf("error = %v, want %v", err, c.want)
			}
		})
	}
	allowed := []exposure.CustomSpec{
		{Kind: exposure.KindBuiltin, Exposure: both},
		{Kind: exposure.KindCustom, Confirm: true},
		{Kind: exposure.KindRemote},
		{Kind: exposure.KindMCP},
	}
	for _, spec := range allowed {
		if _, err := exposure.NewCustomTool(withDefaults(spec)); err != nil {
			t.Errorf("%+v refused: %v", spec, err)
		}
	}
}

func TestCustomToolConstructorValidatesTheDescriptor(t *testing.T) {
	cases := []struct {
		label string
		spec  exposure.CustomSpec
	}{
		{"bad name", exposure.CustomSpec{Name: "has space"}},
		{"name too long", exposure.CustomSpec{Name: strings.Repeat("x", 65)}},
		{"schema root not an object", exposure.CustomSpec{InputSchema: map[string]any{"type": "string"}}},
		{"schema that does not compile", exposure.CustomSpec{InputSchema: map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "nope"}}}}},
		{"schema with an external reference", exposure.CustomSpec{InputSchema: map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"$ref": "file:///etc/passwd"}}}}},
		{"kind application", exposure.CustomSpec{Kind: exposure.KindApplication}},
		{"trigger without a gate", exposure.CustomSpec{ConfirmTrigger: "ops:prod"}},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			if _, err := exposure.NewCustomTool(withDefaults(c.spec)); err == nil {
				t.Error("accepted")
			}
		})
	}
	noDescription := withDefaults(exposure.CustomSpec{})
	noDescription.Description = ""
	if _, err := exposure.NewCustomTool(noDescription); err == nil {
		t.Error("accepted an empty description")
	}
	noFn := withDefaults(exposure.CustomSpec{})
	noFn.Fn = nil
	if _, err := exposure.NewCustomTool(noFn); err == nil {
		t.Error("accepted a nil function")
	}
}

func TestCustomToolExecutePassesItsJSONThroughWithoutAnExecRecord(t *testing.T) {
	tool := newCustom(t, exposure.CustomSpec{})
	out, err := execute(background, tool, json.RawMessage(`{"q":"abc"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Exec != nil || string(out.Output) != `{"echo":{"q":"abc"}}` {
		t.Errorf("outcome = %+v (output %s)", out, out.Output)
	}
	bad := newCustom(t, exposure.CustomSpec{Fn: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{not json`), nil
	}})
	if _, err := execute(background, bad, json.RawMessage(`{"q":"a"}`), nil); err == nil {
		t.Error("output that is not JSON was passed through")
	}
}

func TestCustomToolValidatesEveryCallBeforeItsFunctionRuns(t *testing.T) {
	called := false
	tool := newCustom(t, exposure.CustomSpec{Fn: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		called = true
		return json.RawMessage(`{}`), nil
	}})
	for _, in := range []string{`{}`, `{"q":""}`, `{"q":1}`, `{"q":"a","extra":true}`, `{"q":"a"} {}`, ``} {
		_, err := execute(background, tool, json.RawMessage(in), nil)
		var ve *schema.ValidationError
		if !errors.As(err, &ve) || len(ve.Violations) == 0 {
			t.Errorf("input %q: error %v, want a *schema.ValidationError with violations", in, err)
		}
	}
	if called {
		t.Error("the function ran on invalid input")
	}
}

func TestCustomToolDefaultsAreConservativeAndExposed(t *testing.T) {
	tool := newCustom(t, exposure.CustomSpec{})
	if b := exposure.BehaviorOf(tool); b != exposure.ConservativeBehavior {
		t.Errorf("behaviour = %+v, want conservative", b)
	}
	if !tool.MCPExposable() || !tool.A2AExposable() {
		t.Error("default exposure is not everywhere")
	}
	d := tool.(exposure.Describer)
	if d.Kind() != exposure.KindCustom || d.Presentation() != exposure.PresentationSelfRendered {
		t.Errorf("kind/presentation = %s/%s", d.Kind(), d.Presentation())
	}
	c := tool.(exposure.Confirmable)
	if c.NeedsConfirm() || c.ConfirmTrigger() != "" {
		t.Error("ungated tool reports a gate")
	}
	if s := tool.(exposure.Sourced); s.Source() != exposure.SourceCustom || s.Title() != "search" {
		t.Errorf("sourced = %q %q", s.Source(), s.Title())
	}
	remote := newCustom(t, exposure.CustomSpec{Kind: exposure.KindRemote})
	if p := remote.(exposure.Describer).Presentation(); p != exposure.PresentationRemote {
		t.Errorf("remote presentation = %s", p)
	}
	ro := exposure.Behavior{ReadOnly: true, Idempotent: true}
	restricted := newCustom(t, exposure.CustomSpec{Behavior: &ro, Exposure: &exposure.Exposure{A2A: true}})
	if exposure.BehaviorOf(restricted) != ro || restricted.MCPExposable() || !restricted.A2AExposable() {
		t.Error("declared behaviour or exposure not kept")
	}
}

func TestGatedCustomToolDefaultsItsTriggerToAiConfirm(t *testing.T) {
	c := newCustom(t, exposure.CustomSpec{Confirm: true}).(exposure.Confirmable)
	if !c.NeedsConfirm() || c.ConfirmTrigger() != exposure.TagConfirm {
		t.Errorf("gate = (%v, %q)", c.NeedsConfirm(), c.ConfirmTrigger())
	}
	named := newCustom(t, exposure.CustomSpec{Confirm: true, ConfirmTrigger: "ops:prod"}).(exposure.Confirmable)
	if named.ConfirmTrigger() != "ops:prod" {
		t.Errorf("trigger = %q", named.ConfirmTrigger())
	}
	call, err := c.(exposure.Tool).Prepare(json.RawMessage(`{ "q" : "a b" }`))
	if err != nil || len(call.Argv()) != 2 || call.Argv()[0] != "search" || call.Argv()[1] != `{"q":"a b"}` {
		t.Fatalf("Prepare = %+v, %v", call, err)
	}
	escaped, err := c.(exposure.Tool).Prepare(json.RawMessage(`{"q":"x\u001b[2J"}`))
	if err != nil {
		t.Fatal(err)
	}
	if argv := escaped.Argv(); strings.ContainsRune(execrunner.DisplayCommandLine(argv[0], argv[1:]), 0x1b) {
		t.Errorf("display line of %q carries a raw escape", argv)
	}
}

func TestCustomToolSchemaIsACopyTheCallerCannotChange(t *testing.T) {
	s := objectSchema()
	tool := newCustom(t, exposure.CustomSpec{InputSchema: s})
	s["properties"] = nil
	got := tool.InputSchema()
	got["type"] = "string"
	again := tool.InputSchema()
	if again["type"] != "object" || again["properties"] == nil {
		t.Errorf("schema was changed through a copy: %v", again)
	}
}

// The schema library's messages quote the value or the keys they reject:
// a call's error must not repeat a megabyte value or a hundred long keys.
func TestCustomToolValidationMessagesAreBounded(t *testing.T) {
	tool := newCustom(t, exposure.CustomSpec{Fn: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	}})
	long := strings.Repeat("v", 1<<20)
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = `"` + strings.Repeat("k", 1000) + string(rune('0'+i%10)) + strings.Repeat("x", i) + `":1`
	}
	for _, in := range []string{`{"q":1,"` + long + `":1}`, `{"q":"a",` + strings.Join(keys, ",") + `}`} {
		_, err := tool.Prepare(json.RawMessage(in))
		if err == nil || len(err.Error()) > 2000 {
			t.Errorf("error of %d bytes: %.200s", len(err.Error()), err)
		}
	}
}
