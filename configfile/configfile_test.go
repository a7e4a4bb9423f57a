package configfile_test

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/configfile"
)

const schema = `{
  "type": "object", "additionalProperties": false,
  "$defs": {"item": {"type": "object", "additionalProperties": false, "properties": {"path": {"type": "string"}}}},
  "properties": {"timeout": {"type": "string"}, "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
    "names": {"type": "object", "propertyNames": {"maxLength": 3, "errorMessage": {"maxLength": "a name is three letters at most"}},
      "additionalProperties": {"type": "string", "errorMessage": "give a word"}}}
}`

func TestMistakesAreNamedWhereTheyAre(t *testing.T) {
	s, err := configfile.NewSchema([]byte(schema), "see --help")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ yaml, want string }{
		{"timout: 1s\n", `unknown key "timout" (did you mean "timeout"?); see --help`},
		{"items:\n  - pth: x\n", `unknown key "pth" in items[0] (did you mean "path"?)`},
		{"timeout: 3\n", "timeout: "},
		{"timeout: 1s\n---\ntimeout: 2s\n", "line 2: a second YAML document begins here"},
		{"1: x\n", `line 1: key "1" is a number`},
		{"timeout: 1s\nnames:\n  ab: [x]\n", "line 3: names.ab: give a word"},
		{"names:\n  \"long name\\e\": x\n", `line 2: names["long name\x1b"]: a name is three letters at most`},
		{"names: {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10, k: 11, l: 12}\n", "names.j: give a word; and 2 more"},
		{"timeout: 1s\na: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\ng: 7\nh: 8\ni: 9\nj: 10\nk: 11\n", `line 11: unknown key "j"; and 1 more`},
	}
	for _, tc := range cases {
		_, err := s.Parse([]byte(tc.yaml), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
	js, err := s.Parse([]byte("# nothing\n"), nil)
	if err != nil || string(js) != "{}" {
		t.Errorf("an empty file is %s, %v; want {}", js, err)
	}
}

// A key that breaks a propertyNames schema is named where it is, however
// the validator happened to order the object's other keys (it visits them
// in map order, and once named the key's object by a sibling's place).
func TestABadKeyIsNamedWhereItIsWhateverItsSiblings(t *testing.T) {
	s, err := configfile.NewSchema([]byte(schema), "see --help")
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		_, err := s.Parse([]byte("timeout: 1s\nnames:\n  long: x\n"), nil)
		if err == nil || !strings.Contains(err.Error(), `line 3: names.long: a name is three letters at most`) {
			t.Fatalf("%v, want the key named at line 3 under names", err)
		}
	}
}
