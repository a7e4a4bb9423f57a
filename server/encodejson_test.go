package server

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// stdJSON is v as a json.Encoder without HTML escaping writes it.
func stdJSON(t testing.TB, v any) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func TestAppendJSONWritesWhatEncodingJSONWrites(t *testing.T) {
	var everyByte strings.Builder
	for b := range 256 {
		everyByte.WriteByte(byte(b))
	}
	values := []any{
		nil, true, false, "", "plain", `quote " and \ backslash`, "\b\f\n\r\t\x00\x1f\x7f",
		"<html> & 'entities'", "ünïcödé ✓ 🙂", "line\u2028para\u2029end", "bad \xff\xfe utf-8 \xe2\x82",
		everyByte.String(),
		0.0, math.Copysign(0, -1), 1.0, -2.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, math.MaxFloat32,
		json.Number("0"), json.Number("-12.5e+3"), json.Number(""), json.Number("9007199254740993"),
		0, -1, math.MaxInt64, 100,
		[]any{}, []any(nil), []string(nil), []string{"a", "b\n"}, []any{1, "x", nil, []any{true}},
		map[string]any{}, map[string]any(nil),
		map[string]any{"b": 1, "a": map[string]any{"z\x01": []any{"y"}, "é": false, "": nil, "A": "upper"}, "€": 2.0},
		map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"count": map[string]any{"type": "integer", "minimum": json.Number("0"), "maximum": 100, "description": "How many <times> & more"},
			"mode":  map[string]any{"type": "string", "enum": []any{"a", "b"}},
		}, "required": []any{"count"}},
	}
	for _, v := range values {
		want, err := stdJSON(t, v)
		if err != nil {
			t.Fatalf("encoding/json refuses %#v: %v", v, err)
		}
		got, ok := appendJSON(nil, v)
		if !ok {
			t.Errorf("appendJSON(%#v) declined a value encoding/json writes as %s", v, want)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("appendJSON(%#v)\n got %s\nwant %s", v, got, want)
		}
	}
}

func TestAppendJSONLeavesToEncodingJSONWhatItDoesNotWrite(t *testing.T) {
	type other struct{ A int }
	for _, v := range []any{
		// (A number with white space around it is written as it is: still
		// JSON, and no decoder gives one.)
		math.NaN(), math.Inf(1), json.Number("01"), json.Number("1e"), json.Number("x"), json.Number(`"1"`),
		map[string]any{"a": map[string]any{"b": math.Inf(-1)}}, []any{json.Number("1."), 2},
	} {
		if _, err := stdJSON(t, v); err == nil {
			t.Fatalf("encoding/json writes %#v; the case is for values it refuses", v)
		}
		if got, ok := appendJSON(nil, v); ok {
			t.Errorf("appendJSON(%#v) wrote %s; it must leave the value to encoding/json", v, got)
		}
	}
	// Other Go values it writes as encoding/json does.
	for _, v := range []any{other{1}, float32(1.5), int64(3), map[string]int{"b": 2, "a": 1}, []any{1, other{}}} {
		want, err := stdJSON(t, v)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := appendJSON(nil, v); !ok || !bytes.Equal(got, want) {
			t.Errorf("appendJSON(%#v) = %s, %v; want %s", v, got, ok, want)
		}
	}
}

// The descriptors of a real application's tools, in both schema modes:
// each listed input schema is in the bytes encoding/json gives the schema.
func TestEncodedSchemaOfEveryFixtureToolIsEncodingJSONs(t *testing.T) {
	for _, mode := range []schema.Mode{schema.Restricted, schema.Full} {
		set := fixtureSet(t, exposure.Policy{Schema: mode})
		for _, tool := range set.Tools() {
			s := tool.InputSchema()
			want, err := stdJSON(t, s)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := encodedSchema(s).(json.RawMessage)
			if !ok || !bytes.Equal(got, want) {
				t.Errorf("%s (%s): encoded schema\n got %s\nwant %s", tool.Name(), mode, got, want)
			}
		}
	}
}
