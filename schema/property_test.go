package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/choria-io/fisk"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/fixture/app"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// gen draws JSON values from an advertised schema with a seeded generator,
// favouring the values that break command lines: leading dashes, "=",
// "@", whitespace, newlines, quotes, non-ASCII, empty strings, range edges.
type gen struct {
	r *rand.Rand
}

var tricky = []string{"", "-", "--x", "--x=y", "-v", "@file", "=", "a=b", "--no-color", " ", "a b", "line\nbreak",
	"tab\there", "quote\"s", "back\\slash", "$HOME", "*", "é", "💥", "'", "--context=evil", "--", "-- x"}

const alphabet = "ab-=@ :\n\t\"'\\$*/é💥0"

func (g gen) string(avoid string) string {
	if g.r.IntN(3) == 0 {
		s := tricky[g.r.IntN(len(tricky))]
		if !strings.ContainsAny(s, avoid) {
			return s
		}
	}
	runes := []rune(alphabet)
	var b strings.Builder
	for range g.r.IntN(8) {
		c := runes[g.r.IntN(len(runes))]
		if !strings.ContainsRune(avoid, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func (g gen) duration() string {
	if g.r.IntN(8) == 0 {
		return "0"
	}
	var b strings.Builder
	b.WriteString([]string{"", "", "+", "-"}[g.r.IntN(4)])
	for range 1 + g.r.IntN(3) {
		b.WriteString(strconv.Itoa(g.r.IntN(1000)))
		if g.r.IntN(3) == 0 {
			b.WriteString("." + strconv.Itoa(g.r.IntN(100)))
		}
		b.WriteString([]string{"ns", "us", "ms", "s", "m", "h"}[g.r.IntN(6)])
	}
	return b.String()
}

func (g gen) integer(s map[string]any) json.Number {
	lo, hi := big.NewInt(-maxExactInteger), big.NewInt(maxExactInteger)
	if r := ratOf(s["minimum"]); r != nil {
		lo = r.Num()
	}
	if r := ratOf(s["maximum"]); r != nil {
		hi = r.Num()
	}
	var n *big.Int
	switch g.r.IntN(6) {
	case 0:
		n = lo
	case 1:
		n = hi
	case 2: // small values around zero, clamped
		n = big.NewInt(int64(g.r.IntN(21) - 10))
		if n.Cmp(lo) < 0 {
			n = lo
		}
		if n.Cmp(hi) > 0 {
			n = hi
		}
	default:
		span := new(big.Int).Sub(hi, lo).Uint64() // at most 2^54: fits
		n = new(big.Int).Add(lo, new(big.Int).SetUint64(g.r.Uint64N(span+1)))
	}
	if g.r.IntN(5) == 0 { // JSON Schema integers may be written as 7.0 or 7e0
		if g.r.IntN(2) == 0 {
			return json.Number(n.String() + ".0")
		}
		return json.Number(n.String() + "e0")
	}
	return json.Number(n.String())
}

func (g gen) number() json.Number {
	return json.Number(strconv.FormatFloat([]float64{0, -0.5, 1e300, -1e-300, 3.25, math.MaxFloat64, g.r.NormFloat64() * 1e6}[g.r.IntN(7)], 'g', -1, 64))
}

func (g gen) value(s map[string]any, positional bool) any {
	if enum, ok := s["enum"].([]any); ok {
		return enum[g.r.IntN(len(enum))]
	}
	switch s["type"] {
	case "boolean":
		return g.r.IntN(2) == 0
	case "integer":
		return g.integer(s)
	case "number":
		return g.number()
	case "array":
		n := g.r.IntN(4)
		if m, ok := s["minItems"].(int); ok && n < m {
			n = m
		}
		items := []any{}
		for range n {
			items = append(items, g.value(s["items"].(map[string]any), positional))
		}
		return items
	case "object":
		avoid := ""
		if _, ok := s["propertyNames"]; ok {
			avoid = "=:"
		}
		m := map[string]any{}
		for range g.r.IntN(4) {
			m[g.string(avoid)] = g.string("")
		}
		return m
	default:
		if s["pattern"] == durationPattern {
			return g.duration()
		}
		for {
			// "--" is the one string a positional cannot carry; the
			// validator rejects it (TestRenderRejectsAPositionalThatIsExactlyDoubleDash).
			if v := g.string(""); !positional || v != "--" {
				return v
			}
		}
	}
}

// input draws one arguments object: every required property, each optional
// one with probability 1/2.
func (g gen) input(c *Command, s map[string]any) map[string]any {
	required := map[string]bool{}
	for _, r := range s["required"].([]any) {
		required[r.(string)] = true
	}
	in := map[string]any{}
	for name, prop := range s["properties"].(map[string]any) {
		if required[name] || g.r.IntN(2) == 0 {
			in[name] = g.value(prop.(map[string]any), c.byName[name].source == positional)
		}
	}
	return in
}

func TestRenderedArgvParsesBackToTheSameValuesForEveryFixtureTool(t *testing.T) {
	leaves, err := introspect.Walk(fixtureModel)
	if err != nil {
		t.Fatal(err)
	}
	g := gen{r: rand.New(rand.NewPCG(2026, 11))}
	const perTool = 60
	cases := 0
	for _, l := range leaves {
		for i := range perTool {
			globals := [][]string{nil, {"server"}, {"server", "password"}}[i%3]
			full := compileLeaf(t, l, globals, Full)
			restricted := compileLeaf(t, l, globals, Restricted)
			in := g.input(full, full.schema)
			raw, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			argv, err := full.Render(raw)
			if err != nil {
				t.Fatalf("%s: Render(%s): %v", l.FullCommand(), raw, err)
			}
			if again, err := restricted.Render(raw); err != nil || !slices.Equal(again, argv) {
				t.Fatalf("%s: restricted mode renders %s as %q, %v; full mode as %q", l.FullCommand(), raw, again, err, argv)
			}
			inv, err := app.Parse(argv)
			if err != nil {
				t.Fatalf("%s: the fixture rejects %q (from %s): %v", l.FullCommand(), argv, raw, err)
			}
			if inv.Command != l.FullCommand() {
				t.Fatalf("%q selected %q, want %q", argv, inv.Command, l.FullCommand())
			}
			for name, value := range in {
				if err := sameValue(full.byName[name], value, inv.Values[full.byName[name].name]); err != nil {
					t.Fatalf("%s: %s: %v\n  input %s\n  argv  %q", l.FullCommand(), name, err, raw, argv)
				}
			}
			cases++
		}
	}
	if cases < 500 {
		t.Fatalf("only %d cases", cases)
	}
	t.Logf("%d generated calls over %d tools parsed back identically", cases, len(leaves))
}

func compileLeaf(t *testing.T, l introspect.Leaf, globals []string, mode Mode) *Command {
	t.Helper()
	g, err := Globals(fixtureModel, globals)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCommand(l.Path, l.Command, g, mode)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sameValue compares a generated JSON value with what fisk parsed.
func sameValue(p *param, sent, parsed any) error {
	var want any
	switch p.form {
	case formCounter:
		n, _ := integer(sent.(json.Number))
		want = int(n.Int64())
	case formBool, formSwitch:
		want = sent.(bool)
	case formMap:
		m := map[string]string{}
		for k, v := range sent.(map[string]any) {
			m[k] = v.(string)
		}
		want = m
	case formList:
		items := []string{}
		for _, item := range sent.([]any) {
			items = append(items, p.text(item))
		}
		if len(items) == 0 && reflect.ValueOf(parsed).Len() == 0 {
			return nil
		}
		want = items
	default:
		text := p.text(sent)
		switch x := parsed.(type) {
		case string:
			if p.duration {
				d, err := fisk.ParseDuration(text)
				if err != nil {
					return err
				}
				text = d.String()
			}
			want = text
		case float64:
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return err
			}
			want = f
		default:
			if got := fmt.Sprint(x); got != text {
				return fmt.Errorf("parsed %s (%T), sent %s", got, x, text)
			}
			return nil
		}
	}
	if !reflect.DeepEqual(want, parsed) {
		return fmt.Errorf("parsed %#v, want %#v", parsed, want)
	}
	return nil
}
