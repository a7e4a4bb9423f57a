package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
)

// Render validates args (see Validate) and returns the argument vector
// after the binary: the command path, the command's flag tokens in
// declaration order, the global flag tokens, then "--" and the positional
// values (no "--" when there are none). Before "--" there is nothing but
// the path and tokens of known flags; every positional value follows "--",
// so no value can ever be read as a flag. A failed validation is a
// *ValidationError listing every violation.
func (c *Command) Render(args json.RawMessage) ([]string, error) {
	input, err := c.validate(args)
	if err != nil {
		return nil, err
	}
	out := append(make([]string, 0, len(c.path)+len(input)+1), c.path...)
	for _, group := range [][]*param{c.flags, c.globals} {
		for _, p := range group {
			if value, ok := input[p.name]; ok {
				out = p.flagTokens(out, value)
			}
		}
	}
	var positionals []string
	last := -1
	for i, a := range c.args {
		if _, ok := input[a.name]; ok && !a.hidden {
			last = i
		}
	}
	for i := 0; i <= last; i++ {
		a := c.args[i]
		value, ok := input[a.name]
		if !ok || a.hidden {
			positionals = append(positionals, a.defaults...)
			continue
		}
		positionals = a.values(positionals, value)
	}
	if len(positionals) > 0 {
		out = append(out, "--")
		out = append(out, positionals...)
	}
	return out, nil
}

// flagTokens appends the tokens of one validated flag value.
func (p *param) flagTokens(out []string, value any) []string {
	flag := "--" + p.name
	switch p.form {
	case formBool:
		if value.(bool) {
			return append(out, flag)
		}
		return append(out, "--no-"+p.name)
	case formSwitch:
		if value.(bool) {
			return append(out, flag)
		}
		return out
	case formCounter:
		n, _ := integer(value.(json.Number))
		for range n.Int64() {
			out = append(out, flag)
		}
		return out
	case formList:
		for _, item := range value.([]any) {
			out = append(out, flag+"="+p.text(item))
		}
		return out
	case formMap:
		entries := value.(map[string]any)
		keys := make([]string, 0, len(entries))
		for k := range entries {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, flag+"="+k+"="+entries[k].(string))
		}
		return out
	default:
		return append(out, flag+"="+p.text(value))
	}
}

// values appends the tokens of one validated positional value.
func (p *param) values(out []string, value any) []string {
	if items, ok := value.([]any); ok {
		for _, item := range items {
			out = append(out, p.text(item))
		}
		return out
	}
	return append(out, p.text(value))
}

// text renders one validated scalar the way fisk parses it. Integers are
// rendered in canonical decimal: JSON Schema accepts 1.0 and 1e2 as
// integers, fisk's integer parsers do not.
func (p *param) text(value any) string {
	switch x := value.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		if p.scalar == "integer" {
			if n, ok := integer(x); ok {
				return n.String()
			}
		}
		return x.String()
	}
	panic(fmt.Sprintf("schema: unvalidated value %T reached the renderer", value))
}

// integer returns the exact integer a JSON number denotes.
func integer(n json.Number) (*big.Int, bool) {
	r, ok := new(big.Rat).SetString(n.String())
	if !ok || !r.IsInt() {
		return nil, false
	}
	return r.Num(), true
}
