package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/choria-io/fisk"
)

func render(t *testing.T, c *Command, in string) []string {
	t.Helper()
	argv, err := c.Render(json.RawMessage(in))
	if err != nil {
		t.Fatalf("Render(%s): %v", in, err)
	}
	return argv
}

func TestRenderPutsPathThenCommandFlagsThenGlobalsThenPositionalsAfterDoubleDash(t *testing.T) {
	c := command(t, "echo", Restricted, "server")
	got := render(t, c, `{"body":"b","server":"nats://x","subject":"s","mode":"slow","context":"c","count":2}`)
	want := []string{"echo", "--mode=slow", "--count=2", "--server=nats://x", "--context=c", "--", "s", "b"}
	if !slices.Equal(got, want) {
		t.Fatalf("argv = %q\nwant   %q", got, want)
	}
}

func TestRenderPutsNestedCommandPathFirst(t *testing.T) {
	c := command(t, "admin user add", Restricted)
	got := render(t, c, `{"name":"bob","role":"admin","context":"c"}`)
	want := []string{"admin", "user", "add", "--role=admin", "--context=c", "--", "bob"}
	if !slices.Equal(got, want) {
		t.Fatalf("argv = %q, want %q", got, want)
	}
}

func TestRenderOmitsDoubleDashWithoutPositionals(t *testing.T) {
	c := command(t, "status", Restricted)
	if got := render(t, c, `{"context":"c"}`); !slices.Equal(got, []string{"status", "--context=c"}) {
		t.Fatalf("argv = %q", got)
	}
}

func TestRenderTreatsEmptyArgumentsAsAnEmptyObject(t *testing.T) {
	c := command(t, "admin user list", Restricted)
	c.required = nil // only the required --context global stands in the way
	for _, in := range []string{"", " \n", "{}"} {
		if got := render(t, c, in); !slices.Equal(got, []string{"admin", "user", "list"}) {
			t.Fatalf("Render(%q) = %q", in, got)
		}
	}
}

func TestRenderFlagKinds(t *testing.T) {
	c := command(t, "echo", Restricted)
	for _, tc := range []struct {
		name, in string
		want     []string // flag tokens between the path and --context
	}{
		{"counter is repeated", `{"verbose":3}`, []string{"--verbose", "--verbose", "--verbose"}},
		{"counter zero renders nothing", `{"verbose":0}`, nil},
		{"map renders one entry per token sorted by key", `{"meta":{"b":"2","a":"x=y:z"}}`, []string{"--meta=a=x=y:z", "--meta=b=2"}},
		{"cumulative flag is repeated", `{"label":["x","--y",""]}`, []string{"--label=x", "--label=--y", "--label="}},
		{"negatable bool true", `{"color":true}`, []string{"--color"}},
		{"negatable bool false", `{"color":false}`, []string{"--no-color"}},
		{"negatable bool defaulting to true can be turned off", `{"cache":false}`, []string{"--no-cache"}},
		{"un-negatable bool true", `{"force":true}`, []string{"--force"}},
		{"un-negatable bool false is its default: nothing", `{"force":false}`, nil},
		{"un-negatable bool defaulting to true accepts true", `{"follow":true}`, []string{"--follow"}},
		{"enum", `{"mode":"auto"}`, []string{"--mode=auto"}},
		{"duration", `{"wait":"1h30m"}`, []string{"--wait=1h30m"}},
		{"integer written as a float renders canonical", `{"count":1e2,"limit":-7.0}`, []string{"--count=100", "--limit=-7"}},
		{"number keeps its literal", `{"ratio":-2.5e-3}`, []string{"--ratio=-2.5e-3"}},
		{"int range edge", `{"size":65535}`, []string{"--size=65535"}},
		{"string value that looks like a flag stays inside its token", `{"mode":"fast","body":"--force"}`, []string{"--mode=fast"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, c, `{"context":"c","subject":"s",`+tc.in[1:])
			end := slices.Index(got, "--context=c")
			if end < 0 || !slices.Equal(got[1:end], tc.want) {
				t.Fatalf("argv = %q, want flag tokens %q", got, tc.want)
			}
		})
	}
}

func TestRenderPassesPositionalsThatLookLikeFlagsAfterDoubleDash(t *testing.T) {
	c := command(t, "batch", Restricted)
	got := render(t, c, `{"context":"c","items":["--force","-v","@/etc/passwd","--no-color","="]}`)
	want := []string{"batch", "--context=c", "--", "--force", "-v", "@/etc/passwd", "--no-color", "="}
	if !slices.Equal(got, want) {
		t.Fatalf("argv = %q, want %q", got, want)
	}
}

func TestRenderRendersIntegerPositionalsCanonically(t *testing.T) {
	c := command(t, "exit", Restricted)
	if got := render(t, c, `{"context":"c","code":3e0}`); !slices.Equal(got, []string{"exit", "--context=c", "--", "3"}) {
		t.Fatalf("argv = %q", got)
	}
}

// model decodes a hand-written introspection document and compiles the
// leaf at path.
func model(t *testing.T, doc, path string, globals []string, mode Mode) *Command {
	t.Helper()
	app, leaves := decodeLeaves(t, doc)
	g, err := Globals(app, globals)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaves {
		if l.FullCommand() == path {
			c, err := NewCommand(l.Path, l.Command, g, mode)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
	}
	t.Fatalf("no leaf %q", path)
	return nil
}

// gapDoc has a command with an optional argument with a default, an
// optional one without, and a hidden one with a default, before a last one.
const gapDoc = `{"name":"gaps","commands":[{"name":"put",
 "args":[{"name":"a","help":"A","default":["da"]},{"name":"h","help":"H","hidden":true,"default":["dh"]},{"name":"b","help":"B"},{"name":"c","help":"C"}],
 "schema":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}}},
 "restricted_schema":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}}}}]}`

func TestRenderFillsSkippedPositionalsWithTheirDefaults(t *testing.T) {
	c := model(t, gapDoc, "put", nil, Restricted)
	if got := render(t, c, `{"b":"x"}`); !slices.Equal(got, []string{"put", "--", "da", "dh", "x"}) {
		t.Fatalf("argv = %q", got)
	}
}

func TestRenderRejectsSkippingAPositionalWithoutADefault(t *testing.T) {
	c := model(t, gapDoc, "put", nil, Restricted)
	wantViolations(t, c, `{"c":"x"}`, `/b: required because "c" is set: positional arguments cannot be skipped`)
}

// shadowDoc mirrors natscli's "stream copy": an argument and a flag share
// the name "source"; fisk's schema keeps only the flag's property.
const shadowDoc = `{"name":"nats","commands":[{"name":"copy",
 "args":[{"name":"source","help":"Source stream","required":true},{"name":"destination","help":"New stream","required":true}],
 "flags":[{"name":"source","help":"Source data from other streams","cumulative":true}],
 "schema":{"type":"object","additionalProperties":false,"required":["source","destination"],"properties":{"source":{"type":"array","items":{"type":"string"},"description":"Source data from other streams"},"destination":{"type":"string"}}},
 "restricted_schema":{"type":"object","additionalProperties":false,"required":["source","destination"],"properties":{"source":{"type":"array","items":{"type":"string"},"description":"Source data from other streams"},"destination":{"type":"string"}}}}]}`

func TestRenderGivesAnArgumentShadowedByAFlagItsOwnProperty(t *testing.T) {
	c := model(t, shadowDoc, "copy", nil, Restricted)
	props := c.InputSchema()["properties"].(map[string]any)
	if _, ok := props["source_arg"]; !ok {
		t.Fatalf("properties = %v, want source_arg", props)
	}
	if got := render(t, c, `{"source":["A","B"],"source_arg":"S","destination":"D"}`); !slices.Equal(got, []string{"copy", "--source=A", "--source=B", "--", "S", "D"}) {
		t.Fatalf("argv = %q", got)
	}
	wantViolations(t, c, `{"source":["A"],"destination":"D"}`, "/source_arg: required property is missing")
}

func TestRenderIgnoresNilFlagArgAndCommandEntries(t *testing.T) {
	cmd := &fisk.CmdModel{Name: "x", Schema: map[string]any{"type": "object"}, RestrictedSchema: map[string]any{"type": "object"},
		FlagGroupModel: &fisk.FlagGroupModel{Flags: []*fisk.FlagModel{nil}}, ArgGroupModel: &fisk.ArgGroupModel{Args: []*fisk.ArgModel{nil}}}
	c, err := NewCommand([]string{"x"}, cmd, []*fisk.FlagModel{nil}, Restricted)
	if err != nil {
		t.Fatal(err)
	}
	if got := render(t, c, `{}`); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("argv = %q", got)
	}
}

func TestRenderOutputIsTheCallersToKeep(t *testing.T) {
	c := command(t, "batch", Restricted)
	a := render(t, c, `{"context":"c","items":["x"]}`)
	a[0] = "mutated"
	if b := render(t, c, `{"context":"c","items":["x"]}`); b[0] != "batch" || strings.Contains(strings.Join(c.Path(), " "), "mutated") {
		t.Fatalf("mutating one argv changed the command: %q, path %q", b, c.Path())
	}
}

func TestRenderIsSafeForConcurrentUse(t *testing.T) {
	c := command(t, "echo", Full, "server")
	done := make(chan error)
	for i := range 4 {
		go func() {
			var err error
			for j := range 50 {
				in := fmt.Sprintf(`{"context":"c","subject":"s%d","verbose":%d,"meta":{"k":"v"},"size":%d}`, i, j%5, j)
				if _, e := c.Render(json.RawMessage(in)); e != nil {
					err = e
				}
				if e := c.Validate(json.RawMessage(`{"size":"x"}`)); e == nil {
					err = fmt.Errorf("invalid call accepted")
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
