package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/choria-io/fisk"
	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Command is one leaf command compiled for serving: the schema a model is
// shown, its compiled validator, and the renderer from arguments to argv.
// It is immutable and safe for concurrent use.
type Command struct {
	path     []string
	mode     Mode
	schema   map[string]any // advertised; never handed out (InputSchema clones)
	flags    []*param       // command flags in declaration order
	globals  []*param       // exposed global flags in declaration order
	args     []*param       // positionals in declaration order, hidden ones included
	byName   map[string]*param
	required []*param
}

// NewCommand compiles the leaf cmd reached by path (the command names from
// the application root), merging the given global flags (see Globals) into
// its schema. A global whose name a command flag or argument already uses is
// skipped for this command: the command's own flag wins, as it does in fisk.
// Every map and slice of the result is new: nothing is shared with the model,
// the globals, or another Command.
//
// It fails, naming the command, when the command carries no precomputed
// schema (fisk < v0.9.0), when a property cannot be rendered as argv, or
// when the resulting schema does not compile.
func NewCommand(path []string, cmd *fisk.CmdModel, globals []*fisk.FlagModel, mode Mode) (*Command, error) {
	name := strings.Join(path, " ")
	c, err := newCommand(path, cmd, globals, mode)
	if err != nil {
		return nil, fmt.Errorf("command %q: %w", name, err)
	}
	return c, nil
}

func newCommand(path []string, cmd *fisk.CmdModel, globals []*fisk.FlagModel, mode Mode) (*Command, error) {
	mode, err := ParseMode(string(mode))
	if err != nil {
		return nil, err
	}
	if cmd == nil {
		return nil, fmt.Errorf("no command model")
	}
	if len(path) == 0 {
		return nil, fmt.Errorf("empty command path")
	}
	for _, p := range path {
		if !validToken(p) {
			return nil, fmt.Errorf("command name %q cannot be passed on a command line", p)
		}
	}
	advertised, full := cmd.RestrictedSchema, cmd.Schema
	if mode == Full {
		advertised = cmd.Schema
	}
	if advertised == nil || full == nil {
		return nil, fmt.Errorf("no precomputed input schema; the application needs fisk >= v0.9.0")
	}
	c := &Command{path: slices.Clone(path), mode: mode, byName: map[string]*param{}}
	b := builder{c: c, props: map[string]any{}, advertised: properties(advertised), full: properties(full), mode: mode,
		used: map[string]bool{}, shadowing: map[string]bool{}}
	b.names(cmd)
	if err := b.args(cmd); err != nil {
		return nil, err
	}
	if err := b.flags(cmd); err != nil {
		return nil, err
	}
	if err := b.globals(globals); err != nil {
		return nil, err
	}
	b.negations(globals)
	if err := b.leftovers(); err != nil {
		return nil, err
	}

	c.schema = map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"properties":           b.props,
	}
	if len(b.required) > 0 {
		c.schema["required"] = b.required
	}
	return c, nil
}

// builder assembles a Command's params and advertised properties.
type builder struct {
	c                *Command
	props            map[string]any
	required         []any
	advertised, full map[string]any // property schemas from fisk
	mode             Mode
	used             map[string]bool // names of every flag and arg, hidden included
	shadowing        map[string]bool // visible flag names
}

func properties(s map[string]any) map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

func (b *builder) add(p *param, prop map[string]any) error {
	return b.addCompiled(p, prop, compileProperty)
}

// addCompiled is add with the validator of prop taken from compile.
func (b *builder) addCompiled(p *param, prop map[string]any, compile func(map[string]any) (*jsonschema.Schema, error)) error {
	if _, dup := b.c.byName[p.name]; dup {
		return fmt.Errorf("two properties are named %q", p.name)
	}
	validator, err := compile(prop)
	if err != nil {
		return fmt.Errorf("the schema of property %q does not compile: %w", p.name, err)
	}
	p.validator = validator
	b.c.byName[p.name] = p
	// The help is the application's text, and the model reads it as it
	// reads a command's output (see execrunner.SanitizeOutput).
	for _, k := range []string{"description", "title"} {
		if d, ok := prop[k].(string); ok {
			prop[k] = execrunner.SanitizeOutput(d)
		}
	}
	b.props[p.name] = prop
	if p.required {
		b.required = append(b.required, p.name)
		b.c.required = append(b.c.required, p)
	}
	return nil
}

func (b *builder) use(name string) { b.used[name] = true }

// names records every flag and argument name of cmd, hidden ones included
// (a global must not shadow them), and the visible flags, whose property
// wins over a same-named argument's in fisk's schema.
func (b *builder) names(cmd *fisk.CmdModel) {
	if cmd.FlagGroupModel != nil {
		for _, f := range cmd.Flags {
			if f != nil {
				b.use(f.Name)
				if !f.Hidden {
					b.shadowing[f.Name] = true
				}
			}
		}
	}
	if cmd.ArgGroupModel != nil {
		for _, a := range cmd.Args {
			if a != nil {
				b.use(a.Name)
			}
		}
	}
}

func (b *builder) args(cmd *fisk.CmdModel) error {
	if cmd.ArgGroupModel == nil {
		return nil
	}
	for i, a := range cmd.Args {
		if a == nil {
			continue
		}
		if a.Hidden {
			b.c.args = append(b.c.args, &param{name: a.Name, source: positional, hidden: true, defaults: a.Default})
			continue
		}
		var p *param
		var out map[string]any
		if b.shadowing[a.Name] {
			p, out = b.renamedArg(a)
		} else {
			prop, ok := b.advertised[a.Name].(map[string]any)
			if !ok {
				return fmt.Errorf("the schema has no property for argument %q", a.Name)
			}
			full, _ := b.full[a.Name].(map[string]any)
			var err error
			if p, out, err = argParam(a, prop, full, b.mode); err != nil {
				return err
			}
		}
		if p.form == formList && i != len(cmd.Args)-1 {
			return fmt.Errorf("argument %q takes many values but is not the last argument", a.Name)
		}
		b.c.args = append(b.c.args, p)
		if err := b.add(p, out); err != nil {
			return err
		}
	}
	return nil
}

// renamedArg handles an argument that shares its name with a flag of the
// same command (natscli's "stream copy" has a "source" argument and a
// --source flag). fisk's schema holds one property per name and the flag's
// overwrites the argument's, so the argument is advertised under a name of
// its own ("source_arg"), with a schema derived from its model.
func (b *builder) renamedArg(a *fisk.ArgModel) (*param, map[string]any) {
	name := a.Name + "_arg"
	for b.used[name] {
		name += "_"
	}
	b.use(name)
	p := &param{name: name, source: positional, required: a.Required, defaults: a.Default, form: formScalar, scalar: "string"}
	description := a.Help
	if strings.TrimSpace(description) == "" {
		description = "The " + a.Name + " argument"
	}
	out := map[string]any{
		"type":        "string",
		"description": suffix(description, fmt.Sprintf("the positional argument %q, renamed because a flag of the command has its name", a.Name)),
	}
	if a.Cumulative {
		p.form = formList
		out["type"] = "array"
		out["items"] = map[string]any{"type": "string"}
		if a.Required {
			out["minItems"] = 1
		}
	}
	return p, out
}

func (b *builder) flags(cmd *fisk.CmdModel) error {
	if cmd.FlagGroupModel == nil {
		return nil
	}
	for _, f := range cmd.Flags {
		if f == nil || f.Hidden {
			continue
		}
		if !validToken(f.Name) {
			return fmt.Errorf("flag name %q cannot be passed on a command line", f.Name)
		}
		prop, ok := b.advertised[f.Name].(map[string]any)
		if !ok {
			return fmt.Errorf("the schema has no property for flag %q", f.Name)
		}
		full, _ := b.full[f.Name].(map[string]any)
		p, out, err := flagParam(f, prop, full, b.mode)
		if err != nil {
			return err
		}
		b.c.flags = append(b.c.flags, p)
		if err := b.add(p, out); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) globals(globals []*fisk.FlagModel) error {
	for _, g := range globals {
		if g == nil || b.used[g.Name] || !validToken(g.Name) {
			continue
		}
		p, prop := globalParam(g, b.mode)
		if err := b.addCompiled(p, prop, p.globalValidator(b.mode)); err != nil {
			return err
		}
		b.c.globals = append(b.c.globals, p)
	}
	return nil
}

// negations handles a negatable boolean X next to a flag literally named
// no-X: fisk resolves --no-X to that flag, so X cannot be turned off with
// it. X then behaves as an un-negatable flag: false renders nothing, or is
// rejected when X defaults to true.
func (b *builder) negations(globals []*fisk.FlagModel) {
	names := maps.Clone(b.used)
	for _, g := range globals {
		if g != nil {
			names[g.Name] = true
		}
	}
	for _, p := range append(slices.Clone(b.c.flags), b.c.globals...) {
		if p.form == formBool && names["no-"+p.name] {
			p.form = formSwitch
			p.onlyTrue = p.defaultTrue
			if p.onlyTrue {
				prop := b.props[p.name].(map[string]any)
				prop["enum"] = []any{true}
				prop["description"] = suffix(prop["description"], fmt.Sprintf("already on by default and --no-%s is another flag: only true is accepted; omit it to keep it on", p.name))
				p.validator, _ = compileProperty(prop) // a boolean enum always compiles
			}
		}
	}
}

// leftovers fails on a schema property that matches no flag or argument:
// the model would be offered something that cannot be rendered.
func (b *builder) leftovers() error {
	for name := range b.advertised {
		if p, ok := b.c.byName[name]; !ok || p.source == globalFlag {
			return fmt.Errorf("the schema's property %q is neither a flag nor an argument of the command", name)
		}
	}
	return nil
}

// validToken accepts the names that can be spelled as a command path token
// or after "--" in a flag token without changing meaning.
func validToken(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "@") {
		return false
	}
	for _, r := range s {
		if r == '=' || r <= ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// known lists the advertised property names for "unknown property" messages.
func (c *Command) known() string {
	names := make([]string, 0, len(c.byName))
	for n := range c.byName {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "none (the command takes no arguments)"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Path returns a copy of the command path.
func (c *Command) Path() []string { return slices.Clone(c.path) }

// Mode returns the schema mode the command was compiled in.
func (c *Command) Mode() Mode { return c.mode }

// InputSchema returns the advertised schema as a deep copy the caller owns.
func (c *Command) InputSchema() map[string]any { return cloneMap(c.schema) }

// ReadInputSchema calls read with the advertised schema itself, which read
// must neither modify nor keep: it is for a reader that only looks at it
// once (to encode it), which InputSchema would make copy it first.
func (c *Command) ReadInputSchema(read func(map[string]any)) { read(c.schema) }

// Globals returns the names of the global flags merged into this command,
// in declaration order (a global colliding with the command's own flag or
// argument is not among them).
func (c *Command) Globals() []string {
	names := make([]string, len(c.globals))
	for i, g := range c.globals {
		names[i] = g.name
	}
	return names
}

// Validate checks args as Render does, without rendering.
func (c *Command) Validate(args json.RawMessage) error {
	_, err := c.validate(args)
	return err
}
