package schema

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/choria-io/fisk"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Globals selects the application-level flags to expose on every tool of
// app: the names requested (--global-flag) plus every required global, in
// the application's declaration order. Requesting an unknown flag, a hidden
// one, or a framework flag (help*, completion-*, fisk-*, version) is an
// error: an operator's typo must not silently expose nothing, and the
// framework's own flags would let a model drive fisk instead of the app.
// The result holds copies; the model is not shared.
func Globals(app *fisk.ApplicationModel, names []string) ([]*fisk.FlagModel, error) {
	var flags []*fisk.FlagModel
	if app != nil && app.FlagGroupModel != nil {
		flags = app.Flags
	}
	byName := map[string]*fisk.FlagModel{}
	for _, f := range flags {
		if f != nil {
			byName[f.Name] = f
		}
	}
	want := map[string]bool{}
	var problems []string
	for _, name := range names {
		f := byName[name]
		switch {
		case isFrameworkFlag(name):
			problems = append(problems, fmt.Sprintf("%q is a flag of the fisk framework, not of the application, and cannot be exposed", name))
		case f == nil:
			problems = append(problems, fmt.Sprintf("%q is not a global flag of %q (exposable: %s)", name, appName(app), exposable(flags)))
		case f.Hidden:
			problems = append(problems, fmt.Sprintf("%q is a hidden global flag of %q and cannot be exposed", name, appName(app)))
		default:
			want[name] = true
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("global flags: %s", strings.Join(problems, "; "))
	}
	var out []*fisk.FlagModel
	for _, f := range flags {
		if f == nil || f.Hidden || isFrameworkFlag(f.Name) || !(want[f.Name] || f.Required) {
			continue
		}
		c := *f
		c.Default = slices.Clone(f.Default)
		c.Completions = slices.Clone(f.Completions)
		c.Value = nil
		out = append(out, &c)
	}
	return out, nil
}

// isFrameworkFlag names the flags fisk adds to every application.
func isFrameworkFlag(name string) bool {
	return name == "help" || name == "version" || strings.HasPrefix(name, "help-") ||
		strings.HasPrefix(name, "completion-") || strings.HasPrefix(name, "fisk-")
}

func appName(app *fisk.ApplicationModel) string {
	if app == nil {
		return ""
	}
	return app.Name
}

func exposable(flags []*fisk.FlagModel) string {
	var names []string
	for _, f := range flags {
		if f != nil && !f.Hidden && !isFrameworkFlag(f.Name) {
			names = append(names, f.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// globalParam builds the property of a global flag. Globals carry no schema
// in fisk's model, so one is derived from the flag's model: booleans (with
// or without negation), counters, repeatable flags as arrays of strings,
// everything else a string that fisk parses as it would from a terminal.
func globalParam(f *fisk.FlagModel, mode Mode) (*param, map[string]any) {
	p := &param{name: f.Name, source: globalFlag, required: f.Required, scalar: "string"}
	description := f.Help
	if strings.TrimSpace(description) == "" {
		description = "The --" + f.Name + " global flag"
	}
	if len(f.Default) > 0 && !f.Boolean {
		description = suffix(description, "default: "+strings.Join(f.Default, ", "))
	}
	s := map[string]any{"description": description}
	switch {
	case f.Boolean:
		s = p.classifyBoolean(f, s, mode)
	case f.Cumulative:
		p.form = formList
		s["type"] = "array"
		s["items"] = map[string]any{"type": "string"}
		if f.Required {
			s["minItems"] = 1
		}
	default:
		p.form = formScalar
		s["type"] = "string"
	}
	return p, s
}

// globalShape is what the shape of a global flag's property depends on
// (see globalParam and classifyBoolean; its description does not count).
// A global is merged into every command, so its validator is found by
// this key rather than by the property's canonical form, which is not
// written again for each of them.
type globalShape struct {
	form               form
	onlyTrue, required bool
	mode               Mode
}

var globalShapes = struct {
	sync.RWMutex
	m map[globalShape]*compiled
}{m: map[globalShape]*compiled{}}

// globalValidator returns the compile step for the property globalParam
// gave p in mode.
func (p *param) globalValidator(mode Mode) func(map[string]any) (*jsonschema.Schema, error) {
	key := globalShape{form: p.form, onlyTrue: p.onlyTrue, required: p.required, mode: mode}
	return func(prop map[string]any) (*jsonschema.Schema, error) {
		globalShapes.RLock()
		c, ok := globalShapes.m[key]
		globalShapes.RUnlock()
		if ok {
			return c.schema, c.err
		}
		sch, err := compileProperty(prop)
		globalShapes.Lock()
		defer globalShapes.Unlock()
		if c, ok := globalShapes.m[key]; ok {
			return c.schema, c.err
		}
		globalShapes.m[key] = &compiled{schema: sch, err: err}
		return sch, err
	}
}
