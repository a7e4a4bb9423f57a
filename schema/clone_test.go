package schema

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// mutate changes every map and slice reachable from v, depth first.
func mutate(v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			mutate(e)
		}
		x["mutated"] = true
	case []any:
		for i, e := range x {
			mutate(e)
			x[i] = "mutated"
		}
	case []string:
		for i := range x {
			x[i] = "mutated"
		}
	}
}

func snapshot(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNoTwoToolsAndNoToolAndTheModelShareAMapOrSlice(t *testing.T) {
	// A private model, so a failure cannot corrupt other tests.
	app, err := introspect.Load(context.Background(), fixtureBin, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := introspect.Walk(app)
	if err != nil {
		t.Fatal(err)
	}
	globals, err := Globals(app, []string{"server", "password"})
	if err != nil {
		t.Fatal(err)
	}
	compileAll := func(mode Mode) []*Command {
		var out []*Command
		for _, l := range leaves {
			c, err := NewCommand(l.Path, l.Command, globals, mode)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
		return out
	}
	victims, others := compileAll(Restricted), append(compileAll(Restricted), compileAll(Full)...)

	modelBefore := snapshot(t, app)
	othersBefore := make([]string, len(others))
	for i, c := range others {
		othersBefore[i] = snapshot(t, c.schema)
	}
	handedOut := others[0].InputSchema()
	handedOutBefore := snapshot(t, handedOut)

	for _, c := range victims {
		mutate(c.schema)        // the tool's own advertised schema
		mutate(c.InputSchema()) // a copy handed to a caller
		c.path[0] = "mutated"
	}
	mutate(handedOut)
	for _, g := range globals {
		g.Default = append(g.Default[:0:0], "mutated")
	}

	if snapshot(t, app) != modelBefore {
		t.Error("mutating the tools changed the model")
	}
	for i, c := range others {
		if snapshot(t, c.schema) != othersBefore[i] {
			t.Errorf("mutating other tools changed %q (%s)", c.path, c.mode)
		}
		if c.path[0] == "mutated" {
			t.Errorf("tools share a command path slice")
		}
	}
	if got := snapshot(t, others[0].InputSchema()); got != handedOutBefore {
		t.Error("mutating a handed-out schema changed the tool")
	}
	// The tools still work after all that.
	if _, err := others[0].Render(json.RawMessage(`{"context":"c","subject":"s","server":"x"}`)); err != nil {
		t.Fatal(err)
	}
}

func TestInputSchemaReturnsAFreshDeepCopyEachCall(t *testing.T) {
	c := command(t, "echo", Full)
	a, b := c.InputSchema(), c.InputSchema()
	mutate(a)
	if snapshot(t, b) == snapshot(t, a) || snapshot(t, c.InputSchema()) != snapshot(t, b) {
		t.Fatal("two InputSchema results share state")
	}
}
