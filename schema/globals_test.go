package schema

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/choria-io/fisk"
)

func globalNames(flags []*fisk.FlagModel) []string {
	var names []string
	for _, f := range flags {
		names = append(names, f.Name)
	}
	return names
}

func TestGlobalsExposesRequestedFlagsAndAlwaysTheRequiredOnesInDeclarationOrder(t *testing.T) {
	for _, tc := range []struct {
		requested, want []string
	}{
		{nil, []string{"context"}},
		{[]string{"password"}, []string{"password", "context"}},
		{[]string{"password", "server", "password", "context"}, []string{"server", "password", "context"}},
	} {
		got, err := Globals(fixtureModel, tc.requested)
		if err != nil {
			t.Fatal(err)
		}
		if names := globalNames(got); !slices.Equal(names, tc.want) {
			t.Errorf("Globals(%q) = %q, want %q", tc.requested, names, tc.want)
		}
	}
}

func TestGlobalsRejectsUnknownHiddenAndFrameworkFlags(t *testing.T) {
	for _, tc := range []struct {
		name, want string
	}{
		{"nope", `"nope" is not a global flag of "fixture" (exposable: server, password, context)`},
		{"trace", `"trace" is a hidden global flag of "fixture" and cannot be exposed`},
		{"help", `"help" is a flag of the fisk framework`},
		{"help-llm", `"help-llm" is a flag of the fisk framework`},
		{"completion-bash", `"completion-bash" is a flag of the fisk framework`},
		{"fisk-introspect", `"fisk-introspect" is a flag of the fisk framework`},
		{"version", `"version" is a flag of the fisk framework`},
	} {
		_, err := Globals(fixtureModel, []string{"server", tc.name})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Globals(%q) err = %v, want %q", tc.name, err, tc.want)
		}
	}
	_, err := Globals(fixtureModel, []string{"nope", "trace"})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), `"trace"`) {
		t.Fatalf("err = %v, want both problems", err)
	}
}

func TestGlobalsToleratesAnApplicationWithoutFlags(t *testing.T) {
	got, err := Globals(&fisk.ApplicationModel{Name: "bare"}, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("Globals = %v, %v", got, err)
	}
	if _, err := Globals(nil, []string{"x"}); err == nil {
		t.Fatal("requesting a flag of a nil model succeeded")
	}
}

func TestGlobalsReturnsCopiesNotTheModelsFlags(t *testing.T) {
	got, err := Globals(fixtureModel, []string{"server"})
	if err != nil {
		t.Fatal(err)
	}
	got[0].Default[0] = "mutated"
	got[0].Name = "mutated"
	if f := fixtureModel.Flags[0]; f.Name != "server" || f.Default[0] != "nats://127.0.0.1:4222" {
		t.Fatalf("the model changed: %+v", f)
	}
}

func TestGlobalSchemaIsBuiltFromTheFlagModel(t *testing.T) {
	for _, tc := range []struct {
		flag fisk.FlagModel
		want map[string]any
	}{
		{fisk.FlagModel{Name: "s", Help: "A string", Default: []string{"x"}},
			map[string]any{"type": "string", "description": "A string (default: x)"}},
		{fisk.FlagModel{Name: "b", Help: "Neg", Boolean: true, Negatable: true},
			map[string]any{"type": "boolean", "description": "Neg"}},
		{fisk.FlagModel{Name: "u", Help: "Switch", Boolean: true},
			map[string]any{"type": "boolean", "description": "Switch"}},
		{fisk.FlagModel{Name: "t", Help: "On", Boolean: true, Default: []string{"true"}},
			map[string]any{"type": "boolean", "enum": []any{true}, "description": "On (already on by default and has no negation: only true is accepted; omit it to keep it on)"}},
		{fisk.FlagModel{Name: "v", Help: "Verbose", Boolean: true, Cumulative: true},
			map[string]any{"type": "integer", "description": "Verbose (a count from 0 to 100: the flag is given that many times)"}},
		{fisk.FlagModel{Name: "l", Help: "Many", Cumulative: true, Required: true},
			map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1, "description": "Many"}},
		{fisk.FlagModel{Name: "e"},
			map[string]any{"type": "string", "description": "The --e global flag"}},
	} {
		_, got := globalParam(&tc.flag, Restricted)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: schema = %#v\nwant %#v", tc.flag.Name, got, tc.want)
		}
	}
}

// globalsDoc has one global of every kind and a command whose own flag and
// argument share names with two globals.
const globalsDoc = `{"name":"g",
 "flags":[{"name":"neg","boolean":true,"negatable":true},{"name":"on","boolean":true,"default":["true"]},{"name":"sw","boolean":true},
  {"name":"v","boolean":true,"cumulative":true},{"name":"tag","cumulative":true},{"name":"name","help":"Global name"},{"name":"secret","hidden":true},{"name":"hid"}],
 "commands":[{"name":"run",
  "flags":[{"name":"name","help":"Command name"},{"name":"hid","hidden":true}],"args":[{"name":"tag","help":"Tag arg"}],
  "schema":{"type":"object","additionalProperties":false,"properties":{"name":{"type":"string","description":"Command name"},"tag":{"type":"string"}}},
  "restricted_schema":{"type":"object","additionalProperties":false,"properties":{"name":{"type":"string","description":"Command name"},"tag":{"type":"string"}}}}]}`

func TestGlobalsCollidingWithTheCommandsOwnFlagOrArgumentAreSkipped(t *testing.T) {
	c := model(t, globalsDoc, "run", []string{"neg", "on", "sw", "v", "tag", "name", "hid"}, Restricted)
	if got := c.Globals(); !slices.Equal(got, []string{"neg", "on", "sw", "v"}) {
		t.Fatalf("merged globals = %q", got)
	}
	props := c.InputSchema()["properties"].(map[string]any)
	if d := props["name"].(map[string]any)["description"]; d != "Command name" {
		t.Fatalf("the command's own flag lost to the global: %v", d)
	}
}

func TestRenderPutsGlobalTokensAfterCommandFlagsAndBeforeDoubleDash(t *testing.T) {
	c := model(t, globalsDoc, "run", []string{"neg", "on", "sw", "v"}, Restricted)
	argv, err := c.Render(json.RawMessage(`{"tag":"T","name":"N","neg":false,"on":true,"sw":true,"v":2}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run", "--name=N", "--no-neg", "--on", "--sw", "--v", "--v", "--", "T"}
	if !slices.Equal(argv, want) {
		t.Fatalf("argv = %q, want %q", argv, want)
	}
	wantViolations(t, c, `{"on":false}`, "/on: cannot be false: the flag is on by default and has no negation; omit it")
}

func TestRequiredGlobalIsRequiredInTheSchema(t *testing.T) {
	c := command(t, "status", Restricted)
	s := c.InputSchema()
	if !slices.Contains(s["required"].([]any), any("context")) {
		t.Fatalf("required = %v", s["required"])
	}
	wantViolations(t, c, `{}`, "/context: required property is missing")
}

func TestRepeatableGlobalRendersOneTokenPerItem(t *testing.T) {
	c := model(t, globalsDoc, "run", []string{"tag"}, Restricted) // tag collides: skipped
	if slices.Contains(c.Globals(), "tag") {
		t.Fatal("colliding global merged")
	}
	doc := strings.Replace(globalsDoc, `"args":[{"name":"tag","help":"Tag arg"}],`, "", 1)
	doc = strings.ReplaceAll(doc, `,"tag":{"type":"string"}`, "")
	c = model(t, doc, "run", []string{"tag"}, Restricted)
	argv, err := c.Render(json.RawMessage(`{"tag":["a","b=c"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(argv, []string{"run", "--tag=a", "--tag=b=c"}) {
		t.Fatalf("argv = %q", argv)
	}
}

// negationDoc has a negatable --cache (default true) and --color next to
// flags literally named --no-cache and --no-color.
const negationDoc = `{"name":"n","flags":[{"name":"no-color","boolean":true}],"commands":[{"name":"run",
 "flags":[{"name":"cache","boolean":true,"negatable":true,"default":["true"]},{"name":"no-cache","boolean":true},{"name":"color","boolean":true,"negatable":true}],
 "schema":{"type":"object","additionalProperties":false,"properties":{"cache":{"type":"boolean"},"no-cache":{"type":"boolean"},"color":{"type":"boolean"}}},
 "restricted_schema":{"type":"object","additionalProperties":false,"properties":{"cache":{"type":"boolean"},"no-cache":{"type":"boolean"},"color":{"type":"boolean"}}}}]}`

func TestNegatableFlagShadowedByANoFlagIsNeverRenderedAsNoName(t *testing.T) {
	c := model(t, negationDoc, "run", []string{"no-color"}, Restricted)
	argv, err := c.Render(json.RawMessage(`{"color":false,"cache":true,"no-cache":true,"no-color":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"run", "--cache", "--no-cache", "--no-color"}; !slices.Equal(argv, want) {
		t.Fatalf("argv = %q, want %q", argv, want)
	}
	wantViolations(t, c, `{"cache":false}`, "/cache: cannot be false: the flag is on by default and has no negation; omit it")
	if e := c.InputSchema()["properties"].(map[string]any)["cache"].(map[string]any)["enum"]; e == nil {
		t.Fatal("cache still advertises false")
	}
}

// A global's validator is found by its globalShape: every property
// globalParam can give must have one shape per key, or two globals of one
// key would share a validator that is wrong for one of them.
func TestEveryGlobalShapeKeyIsOneShape(t *testing.T) {
	shapeOf := map[globalShape]string{}
	for _, mode := range []Mode{Restricted, Full} {
		for bits := range 1 << 5 {
			f := &fisk.FlagModel{Name: "g", Help: "help", Boolean: bits&1 != 0, Cumulative: bits&2 != 0,
				Negatable: bits&4 != 0, Required: bits&8 != 0}
			if bits&16 != 0 {
				f.Default = []string{"true"}
			}
			p, prop := globalParam(f, mode)
			key, err := shapeKey(prop)
			if err != nil {
				t.Fatal(err)
			}
			k := globalShape{form: p.form, onlyTrue: p.onlyTrue, required: p.required, mode: mode}
			if seen, ok := shapeOf[k]; ok && seen != string(key) {
				t.Errorf("%+v (%+v): shapes %s and %s share a key", k, f, seen, key)
			}
			shapeOf[k] = string(key)
			want, err := compileProperty(prop)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := p.globalValidator(mode)(prop); err != nil || got != want {
				t.Errorf("%+v: the global's validator is not its shape's (%v)", f, err)
			}
		}
	}
}
