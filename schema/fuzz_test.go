package schema

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"testing"
)

// FuzzRender feeds arbitrary bytes as the arguments of fixture tools that
// cover every flag kind and both positional kinds, and checks the renderer's
// invariant on everything it accepts: the command path first; before "--"
// only tokens of known flags (--name=value for value flags, a bare --name
// or --no-name for boolean ones); after "--" exactly the positional values
// of the arguments; no "--" without positionals.
//
//	go test ./schema -run '^$' -fuzz FuzzRender -fuzztime 10s
func FuzzRender(f *testing.F) {
	seeds := []string{
		`{}`,
		`{"context":"c","subject":"s"}`,
		`{"context":"c","subject":"--","body":"-x"}`,
		`{"context":"c","subject":"s","body":"--no-color","label":["--a=b","@f"],"meta":{"k":"--v"},"verbose":3,"color":false,"cache":true,"follow":true,"force":true}`,
		`{"context":"c","subject":"s","count":1e2,"limit":-9007199254740992,"size":65535,"ratio":-0.5e-3,"wait":"1h30m","mode":"auto"}`,
		`{"context":"c","items":["a","--","-b"]}`,
		`{"context":"c","items":["a",""],"server":"--x","password":"p=w"}`,
		`{"context":"c","code":3}`,
		`{"context":"c","code":3.0}`,
		`{"context":"c","code":9223372036854775808}`,
		`{"context":"c","subject":"s","subject":"t"}`,
		`{"context":"c","subject":"s"} {}`,
		`{"context":null,"subject":"a\u0000b"}`,
		`{"context":"c","subject":"s","meta":{"a=b":"c","d:e":"f"}}`,
		`{"context":"c","subject":"s","debug-token":"x","follow":false}`,
		`[1,2]`,
		`{"context":"c","subject":"s","limit":1e999999}`,
		`{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	}
	for _, s := range seeds {
		for tool := range byte(len(fuzzTools)) {
			f.Add(tool, []byte(s))
		}
	}
	cmds := make([]*Command, len(fuzzTools))
	for i, ft := range fuzzTools {
		cmds[i] = command(f, ft.path, ft.mode, ft.globals...)
	}
	f.Fuzz(func(t *testing.T, tool byte, raw []byte) {
		c := cmds[int(tool)%len(cmds)]
		argv, err := c.Render(raw)
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("error %T is not a *ValidationError: %v", err, err)
			}
			return
		}
		checkArgv(t, c, raw, argv)
	})
}

// fuzzTools are the fixture commands the fuzz target drives.
var fuzzTools = []struct {
	path    string
	mode    Mode
	globals []string
}{
	{"echo", Restricted, []string{"server", "password"}},
	{"echo", Full, nil},
	{"batch", Restricted, []string{"password"}},
	{"exit", Full, []string{"server"}},
}

func checkArgv(t *testing.T, c *Command, raw []byte, argv []string) {
	t.Helper()
	if len(argv) < len(c.path) || !slices.Equal(argv[:len(c.path)], c.path) {
		t.Fatalf("argv %q does not start with the command path %q", argv, c.path)
	}
	rest := argv[len(c.path):]
	split := slices.Index(rest, "--")
	flags, after := rest, []string(nil)
	if split >= 0 {
		flags, after = rest[:split], rest[split+1:]
		if len(after) == 0 {
			t.Fatalf("argv %q has a -- with no positional after it", argv)
		}
	}
	bare := map[string]bool{}  // --name tokens allowed
	value := map[string]bool{} // --name= prefixes allowed
	for _, p := range append(slices.Clone(c.flags), c.globals...) {
		switch p.form {
		case formBool:
			bare[p.name], bare["no-"+p.name] = true, true
		case formSwitch, formCounter:
			bare[p.name] = true
		default:
			value[p.name] = true
		}
	}
	for _, tok := range flags {
		name, _, hasValue := strings.Cut(strings.TrimPrefix(tok, "--"), "=")
		ok := strings.HasPrefix(tok, "--") && ((hasValue && value[name]) || (!hasValue && bare[name]))
		if !ok {
			t.Fatalf("token %q before -- is not a known flag token (argv %q, input %q)", tok, argv, raw)
		}
	}
	if want := positionalValues(t, c, raw); !slices.Equal(after, want) {
		t.Fatalf("after -- got %q, want the positional values %q (input %q)", after, want, raw)
	}
}

// positionalValues decodes raw independently of the renderer and lists the
// positional values it carries, in declaration order.
func positionalValues(t *testing.T, c *Command, raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var in map[string]any
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := dec.Decode(&in); err != nil {
			t.Fatalf("Render accepted %q, which does not decode: %v", raw, err)
		}
	}
	var out []string
	for _, a := range c.args {
		v, ok := in[a.name]
		if !ok {
			continue
		}
		items, isList := v.([]any)
		if !isList {
			items = []any{v}
		}
		for _, item := range items {
			switch x := item.(type) {
			case string:
				out = append(out, x)
			case json.Number:
				r, ok := new(big.Rat).SetString(x.String())
				if !ok || !r.IsInt() {
					t.Fatalf("Render accepted the non-integer %s for %s", x, a.name)
				}
				out = append(out, r.Num().String())
			default:
				t.Fatalf("Render accepted %T for %s", item, a.name)
			}
		}
	}
	return out
}
