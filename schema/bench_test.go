package schema

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/fixture/app"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// synthetic returns the introspection document of the fixture built as
// 1,000 generated leaves.
func synthetic(tb testing.TB) []byte {
	tb.Helper()
	syntheticOnce.Do(func() {
		cmd := exec.Command(fixtureBin, "--fisk-introspect")
		cmd.Env = append(os.Environ(), app.SyntheticEnv+"=1000")
		var out bytes.Buffer
		cmd.Stdout = &out
		syntheticErr = cmd.Run()
		syntheticDoc = out.Bytes()
	})
	if syntheticErr != nil {
		tb.Fatal(syntheticErr)
	}
	return syntheticDoc
}

// compileAll is what loading one application costs in this package and
// introspect: decode the document, walk it, compile every leaf.
func compileAll(tb testing.TB, doc []byte, mode Mode) []*Command {
	model, err := introspect.Decode(doc)
	if err != nil {
		tb.Fatal(err)
	}
	leaves, err := introspect.Walk(model)
	if err != nil {
		tb.Fatal(err)
	}
	globals, err := Globals(model, []string{"server"})
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]*Command, len(leaves))
	for i, l := range leaves {
		if out[i], err = NewCommand(l.Path, l.Command, globals, mode); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// BenchmarkCompile1000 decodes, walks and compiles the 1,000-leaf synthetic
// application: one op is one whole application.
func BenchmarkCompile1000(b *testing.B) {
	doc := synthetic(b)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if cmds := compileAll(b, doc, Restricted); len(cmds) != 1000 {
			b.Fatalf("%d commands", len(cmds))
		}
	}
}

func TestSyntheticApplicationCompilesEveryLeafInBothModes(t *testing.T) {
	doc := synthetic(t)
	for _, mode := range []Mode{Restricted, Full} {
		cmds := compileAll(t, doc, mode)
		if len(cmds) != 1000 {
			t.Fatalf("%s: %d commands, want 1000", mode, len(cmds))
		}
		argv, err := cmds[999].Render([]byte(`{"context":"c","count":3,"mode":"b","name":"n"}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := argv; len(got) != 7 || got[0] != "group0099" || got[1] != "cmd0999" {
			t.Fatalf("argv = %q", got)
		}
	}
}

// BenchmarkNewCommand1000 is the schema share of BenchmarkCompile1000: the
// document is decoded and walked once, outside the loop.
func BenchmarkNewCommand1000(b *testing.B) {
	model, err := introspect.Decode(synthetic(b))
	if err != nil {
		b.Fatal(err)
	}
	leaves, err := introspect.Walk(model)
	if err != nil {
		b.Fatal(err)
	}
	globals, err := Globals(model, []string{"server"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range leaves {
			if _, err := NewCommand(l.Path, l.Command, globals, Restricted); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRender is one validated call of the fixture's echo command,
// which has every flag kind.
func BenchmarkRender(b *testing.B) {
	c := command(b, "echo", Restricted, "server")
	args := []byte(`{"context":"c","subject":"s","body":"b","mode":"slow","label":["a","b"],"verbose":2,"meta":{"k":"v"},"color":false,"count":3,"size":7,"ratio":0.5,"wait":"1h","server":"x"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Render(args); err != nil {
			b.Fatal(err)
		}
	}
}
