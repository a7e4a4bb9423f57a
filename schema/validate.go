package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/choria-io/fisk"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validate runs every check on one call's arguments and returns the decoded
// object, or a *ValidationError listing every violation. Order matters only
// for wording: strict decoding first, then the object-level rules (unknown
// and missing properties), then the checks that close the holes of fisk's
// ArgsFromJSON (their messages are more precise), then each property's
// compiled schema, whose findings at a place already reported are dropped.
func (c *Command) validate(raw json.RawMessage) (map[string]any, error) {
	d, fatal := decodeStrict(raw)
	if fatal != nil {
		return nil, &ValidationError{Violations: []Violation{*fatal}}
	}
	v := &violations{}
	for _, issue := range d.issues {
		v.add(issue.Pointer, issue.Message)
	}
	names := make([]string, 0, len(d.input))
	for name := range d.input {
		names = append(names, name)
	}
	sort.Strings(names)
	var unknown string // the message, built once: a call may give many unknown keys
	for _, name := range names {
		if _, ok := c.byName[name]; !ok {
			if unknown == "" {
				unknown = "unknown property; known properties are: " + c.known()
			}
			v.add(pointer("", name), unknown)
		}
	}
	for _, p := range c.required {
		if _, ok := d.input[p.name]; !ok {
			v.add(pointer("", p.name), "required property is missing")
		}
	}
	for _, name := range names {
		if p, ok := c.byName[name]; ok {
			p.check(pointer("", name), d.input[name], v)
		}
	}
	c.checkPositionals(d.input, v)
	for _, name := range names {
		p, ok := c.byName[name]
		if !ok || v.covered(pointer("", name)) {
			continue
		}
		if err := p.validator.Validate(d.input[name]); err != nil {
			var verr *jsonschema.ValidationError
			if !errors.As(err, &verr) {
				v.add(pointer("", name), err.Error())
				continue
			}
			translate(verr, pointer("", name), d.input[name], v)
		}
	}
	if len(v.list) > 0 {
		sort.SliceStable(v.list, func(i, j int) bool { return v.list[i].Pointer < v.list[j].Pointer })
		return nil, &ValidationError{Violations: v.list}
	}
	return d.input, nil
}

// violations collects findings; a finding at or under a place already
// reported is dropped, so each mistake is described once, precisely.
// Looking a place up costs its depth, not the findings so far: a call can
// hold a hundred thousand wrong keys or items, and a scan per finding made
// validating it take a minute.
type violations struct {
	list []Violation
	at   map[string]bool // the pointers of list
}

func (v *violations) covered(ptr string) bool {
	if v.at[ptr] {
		return true
	}
	for i := 1; i < len(ptr); i++ {
		if ptr[i] == '/' && v.at[ptr[:i]] {
			return true
		}
	}
	return false
}

func (v *violations) add(ptr, msg string) {
	if v.covered(ptr) {
		return
	}
	if v.at == nil {
		v.at = map[string]bool{}
	}
	v.at[ptr] = true
	v.list = append(v.list, Violation{Pointer: ptr, Message: msg})
}

// check applies the rules the schema cannot express, or that fisk's parser
// and ArgsFromJSON would otherwise get wrong. Type mismatches are left to
// the schema.
func (p *param) check(ptr string, value any, v *violations) {
	if value == nil {
		v.add(ptr, "null is not allowed; omit the property to leave it unset")
		return
	}
	switch p.form {
	case formSwitch:
		if b, ok := value.(bool); ok && !b && p.onlyTrue {
			v.add(ptr, "cannot be false: the flag is on by default and has no negation; omit it")
		}
	case formCounter, formScalar:
		p.checkScalar(ptr, value, v)
	case formList:
		if items, ok := value.([]any); ok {
			for i, item := range items {
				at := pointer(ptr, strconv.Itoa(i))
				if item == nil {
					v.add(at, "null is not allowed in the list; remove it")
					continue
				}
				p.checkScalar(at, item, v)
			}
		}
	case formMap:
		if entries, ok := value.(map[string]any); ok {
			for key, item := range entries {
				at := pointer(ptr, key)
				switch {
				case strings.ContainsAny(key, "=:"):
					v.add(at, `a key cannot contain "=" or ":" (the flag takes key=value pairs); rename the key`)
				case strings.ContainsRune(key, 0):
					v.add(at, "a key cannot contain a NUL character (\\u0000): it cannot be passed on a command line")
				case item == nil:
					v.add(at, "null is not allowed; give a string value or omit the key")
				default:
					p.checkScalar(at, item, v)
				}
			}
		}
	}
}

func (p *param) checkScalar(ptr string, value any, v *violations) {
	switch x := value.(type) {
	case string:
		if p.scalar != "string" {
			return
		}
		switch {
		case strings.ContainsRune(x, 0):
			v.add(ptr, "cannot contain a NUL character (\\u0000): it cannot be passed on a command line")
		case p.source == positional && x == "--":
			v.add(ptr, `"--" cannot be passed as a positional value: the command line would drop it`)
		case p.duration:
			if _, err := fisk.ParseDuration(x); err != nil || !durationRE.MatchString(x) {
				v.add(ptr, fmt.Sprintf(`%s is not a duration; use a number and a unit (ns, us, ms, s, m, h), such as "30s", "1h30m" or "250ms"`, quote(x)))
			}
		}
	case json.Number:
		switch p.scalar {
		case "integer":
			p.checkInteger(ptr, x, v)
		case "number":
			p.checkNumber(ptr, x, v)
		}
	}
}

func (p *param) checkInteger(ptr string, n json.Number, v *violations) {
	r, ok := new(big.Rat).SetString(n.String())
	if !ok || !r.IsInt() {
		return // the schema reports "expected integer"
	}
	if (p.min != nil && r.Cmp(p.min) < 0) || (p.max != nil && r.Cmp(p.max) > 0) {
		what := "an integer " + p.rangeText()
		if p.form == formCounter {
			what = fmt.Sprintf("a count from 0 to %d", MaxCounter)
		}
		v.add(ptr, fmt.Sprintf("%s is out of range: expected %s", n, what))
	}
}

func (p *param) checkNumber(ptr string, n json.Number, v *violations) {
	if _, err := strconv.ParseFloat(n.String(), 64); err != nil {
		v.add(ptr, fmt.Sprintf("%s is out of range for a floating-point number", n))
		return
	}
	r, ok := new(big.Rat).SetString(n.String())
	if ok && ((p.min != nil && r.Cmp(p.min) < 0) || (p.max != nil && r.Cmp(p.max) > 0)) {
		v.add(ptr, fmt.Sprintf("%s is out of range: expected a number %s", n, p.rangeText()))
	}
}

// checkPositionals enforces that positionals are not skipped: a command
// line cannot leave a gap, so an omitted argument before a given one must
// have a default to stand in for it.
func (c *Command) checkPositionals(input map[string]any, v *violations) {
	last := -1
	for i, a := range c.args {
		if _, ok := input[a.name]; ok && !a.hidden {
			last = i
		}
	}
	for i := 0; i < last; i++ {
		a := c.args[i]
		if _, ok := input[a.name]; ok && !a.hidden {
			continue
		}
		if len(a.defaults) > 0 {
			continue
		}
		later := c.args[last].name
		if a.hidden {
			v.add(pointer("", later), fmt.Sprintf("cannot be set: the command's earlier argument %q is not exposed and has no default", a.name))
			return
		}
		v.add(pointer("", a.name), fmt.Sprintf("required because %q is set: positional arguments cannot be skipped", later))
	}
}
