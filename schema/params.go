package schema

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/choria-io/fisk"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxCounter bounds a counter flag's count: the flag is repeated that many
// times on the command line, so an unbounded count would be an unbounded argv.
const MaxCounter = 100

// maxExactInteger is the largest integer every fisk integer type parses
// exactly. fisk parses a plain int through float64 and the schema cannot
// tell int from int64, so beyond 2^53 a value could silently change.
const maxExactInteger = 1 << 53

// fiskDurationPattern is the pattern fisk puts on duration values. The
// advertised durationPattern drops "µs", which fisk's own duration parser
// rejects, and says the other units in fewer bytes (it is in every
// duration of every tools/list): the same strings match it.
const (
	fiskDurationPattern = `^(0|[-+]?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+)$`
	durationPattern     = `^(0|[-+]?(\d+(\.\d+)?([mnu]?s|m|h))+)$`
)

// source says where a property goes on the command line.
type source int

const (
	commandFlag source = iota
	globalFlag
	positional
)

// form is how a property's value becomes tokens.
type form int

const (
	formScalar  form = iota // --name=value, or one positional token
	formList                // array: --name=item per item, or one positional token per item
	formMap                 // object of strings: --name=key=value per entry, sorted by key
	formBool                // negatable boolean: --name or --no-name
	formSwitch              // un-negatable boolean: --name when true, nothing when false
	formCounter             // integer count: --name repeated count times
)

// param is one property of a command's input: a flag, a global flag or a
// positional argument, with what validation and rendering need to know.
type param struct {
	name        string
	source      source
	form        form
	scalar      string   // JSON type of the value, or of each item or map value
	duration    bool     // values are fisk durations
	min, max    *big.Rat // numeric bounds, nil when none
	onlyTrue    bool     // formSwitch defaulting to true: false cannot be expressed
	defaultTrue bool     // formBool: defaults to true
	required    bool
	hidden      bool     // positional the model cannot set (not in the schema)
	defaults    []string // positional: what fills its place when a later one is set

	validator *jsonschema.Schema // the compiled property schema
}

func (p *param) isNumeric() bool { return p.scalar == "integer" || p.scalar == "number" }

// flagParam classifies a command flag from its model and its property
// schemas (prop as advertised in the selected mode, full from fisk's full
// schema). It returns the property schema to advertise.
func flagParam(f *fisk.FlagModel, prop, full map[string]any, mode Mode) (*param, map[string]any, error) {
	p := &param{name: f.Name, source: commandFlag, required: f.Required}
	out := cloneMap(prop)
	if f.Boolean {
		return p, p.classifyBoolean(f, out, mode), nil
	}
	if err := p.classify(out, full, mode); err != nil {
		return nil, nil, err
	}
	return p, out, nil
}

// classifyBoolean classifies a boolean flag f, of a command or of the
// application, and returns its property schema: s, with its type set (s
// holds the description), or a counter's schema in place of s. A counter
// (a boolean flag given several times) is an integer; a negatable flag is a
// true boolean; any other boolean flag is a switch, which can only be given,
// so when it defaults to true only true is accepted.
func (p *param) classifyBoolean(f *fisk.FlagModel, s map[string]any, mode Mode) map[string]any {
	switch {
	case f.Cumulative:
		p.form, p.scalar = formCounter, "integer"
		p.min, p.max = big.NewRat(0, 1), big.NewRat(MaxCounter, 1)
		return counterSchema(s["description"], mode)
	case f.Negatable:
		p.form, p.scalar = formBool, "boolean"
		p.defaultTrue = defaultIsTrue(f.Default)
		s["type"] = "boolean"
	default:
		p.form, p.scalar = formSwitch, "boolean"
		p.onlyTrue = defaultIsTrue(f.Default)
		s["type"] = "boolean"
		if p.onlyTrue {
			s["enum"] = []any{true}
			s["description"] = suffix(s["description"], "already on by default and has no negation: only true is accepted; omit it to keep it on")
		}
	}
	return s
}

// argParam classifies a positional argument; only scalars and lists exist.
func argParam(a *fisk.ArgModel, prop, full map[string]any, mode Mode) (*param, map[string]any, error) {
	p := &param{name: a.Name, source: positional, required: a.Required, defaults: a.Default}
	out := cloneMap(prop)
	if err := p.classify(out, full, mode); err != nil {
		return nil, nil, err
	}
	if p.form == formMap {
		return nil, nil, fmt.Errorf("argument %q: an object cannot be a positional argument", a.Name)
	}
	return p, out, nil
}

// classify reads a value-carrying property schema (scalar, array or object)
// and adjusts the advertised copy out in place.
func (p *param) classify(out, full map[string]any, mode Mode) error {
	typ, _ := out["type"].(string)
	item, fullItem := out, full
	switch typ {
	case "object":
		p.form, p.scalar = formMap, "string"
		out["additionalProperties"] = map[string]any{"type": "string"}
		if mode == Full {
			out["propertyNames"] = map[string]any{"pattern": "^[^=:]*$"}
		}
		out["description"] = suffix(out["description"], `keys cannot contain "=" or ":"`)
		return nil
	case "array":
		p.form = formList
		item, _ = out["items"].(map[string]any)
		if item == nil {
			item = map[string]any{"type": "string"}
			out["items"] = item
		}
		fullItem, _ = full["items"].(map[string]any)
		typ, _ = item["type"].(string)
		if typ == "" {
			typ = "string"
			item["type"] = typ
		}
		if p.required {
			out["minItems"] = 1
		}
	case "string", "integer", "number", "boolean":
		p.form = formScalar
	default:
		return fmt.Errorf("property %q has type %v, which cannot be passed on a command line", p.name, out["type"])
	}
	switch typ {
	case "string", "integer", "number", "boolean":
	default:
		return fmt.Errorf("property %q has items of type %v, which cannot be passed on a command line", p.name, typ)
	}
	p.scalar = typ
	if pat, _ := item["pattern"].(string); typ == "string" && pat == fiskDurationPattern {
		p.duration = true
		item["pattern"] = durationPattern
	}
	if p.isNumeric() {
		p.bounds(fullItem)
		if mode == Restricted && fullItem != nil && (fullItem["minimum"] != nil || fullItem["maximum"] != nil) {
			if note := p.advertisedRange(); note != "" {
				out["description"] = suffix(out["description"], note)
			}
		}
	}
	return nil
}

// bounds records the numeric range a value must fall in: the range fisk's
// full schema gives for the flag's type, narrowed for integers to the range
// every fisk integer type parses exactly.
func (p *param) bounds(full map[string]any) {
	if full != nil {
		p.min, p.max = ratOf(full["minimum"]), ratOf(full["maximum"])
	}
	if p.scalar == "integer" {
		limit := new(big.Rat).SetInt64(maxExactInteger)
		if p.max == nil || p.max.Cmp(limit) > 0 {
			p.max = limit
		}
		if neg := new(big.Rat).Neg(limit); p.min == nil || p.min.Cmp(neg) < 0 {
			p.min = neg
		}
		return
	}
	// float32 is the only number type with a bound: fisk gives its maximum
	// alone, but the type is symmetric.
	if p.min == nil && p.max != nil {
		if f, _ := p.max.Float64(); f == math.MaxFloat32 {
			p.min = new(big.Rat).Neg(p.max)
		}
	}
}

func (p *param) rangeText() string {
	switch {
	case p.min != nil && p.max != nil:
		return fmt.Sprintf("from %s to %s", ratText(p.min), ratText(p.max))
	case p.min != nil:
		return fmt.Sprintf("at least %s", ratText(p.min))
	case p.max != nil:
		return fmt.Sprintf("at most %s", ratText(p.max))
	}
	return ""
}

// advertisedRange is the range said in a restricted schema's description:
// the flag type's own bounds, leaving out a bound that is only the ±2^53
// every integer is held to. That limit goes unsaid on every other integer
// too, a value past it is refused with the whole range in the message, and
// on a few dozen uint64 flags it would be kilobytes of digits in every
// tools/list ("at least 0" says what a model needs to know).
func (p *param) advertisedRange() string {
	q := *p
	if p.scalar == "integer" {
		limit := new(big.Rat).SetInt64(maxExactInteger)
		if q.max != nil && q.max.Cmp(limit) == 0 {
			q.max = nil
		}
		if q.min != nil && new(big.Rat).Neg(q.min).Cmp(limit) == 0 {
			q.min = nil
		}
	}
	return q.rangeText()
}

func counterSchema(description any, mode Mode) map[string]any {
	s := map[string]any{
		"type":        "integer",
		"description": suffix(description, fmt.Sprintf("a count from 0 to %d: the flag is given that many times", MaxCounter)),
	}
	if mode == Full {
		s["minimum"] = 0
		s["maximum"] = MaxCounter
	}
	return s
}

// suffix appends a parenthesised note to a description.
func suffix(description any, note string) string {
	d, _ := description.(string)
	d = strings.TrimSpace(d)
	if d == "" {
		return note
	}
	return d + " (" + note + ")"
}

// ratOf reads a decoded JSON number (json.Number, float64 or an int).
func ratOf(v any) *big.Rat {
	if v == nil {
		return nil
	}
	r, ok := new(big.Rat).SetString(fmt.Sprint(v))
	if !ok {
		return nil
	}
	return r
}

func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// defaultIsTrue reports whether any default parses as true, as fisk decides.
func defaultIsTrue(defaults []string) bool {
	for _, d := range defaults {
		if b, err := strconv.ParseBool(d); err == nil && b {
			return true
		}
	}
	return false
}
