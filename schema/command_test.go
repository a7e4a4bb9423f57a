package schema

import (
	"reflect"
	"strings"
	"testing"

	"github.com/choria-io/fisk"
)

func TestNewCommandFailsNamingACommandWithoutPrecomputedSchema(t *testing.T) {
	cmd := &fisk.CmdModel{Name: "add"}
	_, err := NewCommand([]string{"auth", "add"}, cmd, nil, Restricted)
	if err == nil || !strings.Contains(err.Error(), `command "auth add"`) || !strings.Contains(err.Error(), "needs fisk >= v0.9.0") {
		t.Fatalf("err = %v", err)
	}
}

// brokenDoc builds a one-command document whose flag "f" has the given
// property schema (in both modes).
func brokenDoc(prop string) string {
	s := `{"type":"object","additionalProperties":false,"properties":{"f":` + prop + `}}`
	return `{"name":"b","commands":[{"name":"grp","commands":[{"name":"bad","flags":[{"name":"f"}],"schema":` + s + `,"restricted_schema":` + s + `}]}]}`
}

func newFromDoc(t *testing.T, doc string, mode Mode) error {
	t.Helper()
	_, leaves := decodeLeaves(t, doc)
	_, err := NewCommand(leaves[0].Path, leaves[0].Command, nil, mode)
	return err
}

func TestNewCommandFailsNamingTheCommandWhenASchemaDoesNotCompile(t *testing.T) {
	for _, tc := range []struct{ prop, want string }{
		{`{"type":"string","pattern":"("}`, `the schema of property "f" does not compile`},
		{`{"type":"string","minLength":"three"}`, `the schema of property "f" does not compile`},
		{`{"type":"string","description":7}`, "its description is"},
		{`{"type":"string","$ref":"file:///etc/passwd"}`, `the schema of property "f" does not compile`},
		{`{"type":"weird"}`, `property "f" has type weird, which cannot be passed on a command line`},
		{`{"type":"array","items":{"type":"object"}}`, `property "f" has items of type object`},
	} {
		err := newFromDoc(t, brokenDoc(tc.prop), Restricted)
		if err == nil || !strings.Contains(err.Error(), `command "grp bad"`) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to name the command and say %q", tc.prop, err, tc.want)
		}
	}
}

func TestNewCommandRefusesExternalReferences(t *testing.T) {
	err := newFromDoc(t, brokenDoc(`{"type":"string","$ref":"https://example.com/s.json"}`), Full)
	if err == nil || !strings.Contains(err.Error(), "external schema references are not allowed") {
		t.Fatalf("err = %v", err)
	}
}

func TestNewCommandFailsOnASchemaPropertyThatIsNeitherFlagNorArgument(t *testing.T) {
	doc := strings.Replace(brokenDoc(`{"type":"string"}`), `"flags":[{"name":"f"}],`, "", 1)
	err := newFromDoc(t, doc, Restricted)
	if err == nil || !strings.Contains(err.Error(), `property "f" is neither a flag nor an argument`) {
		t.Fatalf("err = %v", err)
	}
}

func TestNewCommandFailsOnACumulativeArgumentThatIsNotLast(t *testing.T) {
	s := `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}},"b":{"type":"string"}}}`
	doc := `{"name":"x","commands":[{"name":"c","args":[{"name":"a","cumulative":true},{"name":"b"}],"schema":` + s + `,"restricted_schema":` + s + `}]}`
	if err := newFromDoc(t, doc, Restricted); err == nil || !strings.Contains(err.Error(), `argument "a" takes many values but is not the last`) {
		t.Fatalf("err = %v", err)
	}
}

func TestNewCommandRejectsAnUnknownMode(t *testing.T) {
	l := leaf(t, "echo")
	if _, err := NewCommand(l.Path, l.Command, nil, "loose"); err == nil || !strings.Contains(err.Error(), `unknown schema mode "loose"`) {
		t.Fatalf("err = %v", err)
	}
	if c, err := NewCommand(l.Path, l.Command, nil, ""); err != nil || c.Mode() != Restricted {
		t.Fatalf("empty mode: %v, %v", c, err)
	}
}

func TestNewCommandRejectsNamesThatWouldChangeMeaningOnACommandLine(t *testing.T) {
	l := leaf(t, "status")
	for _, path := range [][]string{{"-x"}, {"a=b"}, {"@file"}, {"a b"}, {""}, nil} {
		if _, err := NewCommand(path, l.Command, nil, Restricted); err == nil {
			t.Errorf("path %q accepted", path)
		}
	}
}

func TestRestrictedModeAdvertisesFisksRestrictedSchemaWithTheAdjustments(t *testing.T) {
	props := command(t, "echo", Restricted).InputSchema()["properties"].(map[string]any)
	size := props["size"].(map[string]any)
	if _, ok := size["maximum"]; ok || !strings.Contains(size["description"].(string), "from 0 to 65535") {
		t.Errorf("size = %v: restricted mode carries ranges in words only", size)
	}
	verbose := props["verbose"].(map[string]any)
	if verbose["type"] != "integer" || verbose["minimum"] != nil {
		t.Errorf("verbose = %v, want an integer count", verbose)
	}
	meta := props["meta"].(map[string]any)
	if ap, ok := meta["additionalProperties"].(map[string]any); !ok || ap["type"] != "string" {
		t.Errorf("meta = %v, want an object of strings even in restricted mode", meta)
	}
	if d, _ := meta["description"].(string); !strings.HasSuffix(d, ` (keys cannot contain "=" or ":")`) {
		t.Errorf("meta description = %q, want the key rule said: restricted mode has no propertyNames", d)
	}
	if wait := props["wait"].(map[string]any); strings.Contains(wait["pattern"].(string), "µs") {
		t.Errorf("wait pattern %v advertises a unit fisk rejects", wait["pattern"])
	}
}

func TestFullModeAdvertisesRangesCounterBoundsAndKeyRules(t *testing.T) {
	props := command(t, "echo", Full).InputSchema()["properties"].(map[string]any)
	if size := props["size"].(map[string]any); size["maximum"] == nil || size["minimum"] == nil {
		t.Errorf("size = %v", size)
	}
	if v := props["verbose"].(map[string]any); v["minimum"] != 0 || v["maximum"] != MaxCounter {
		t.Errorf("verbose = %v", v)
	}
	if m := props["meta"].(map[string]any); m["propertyNames"] == nil {
		t.Errorf("meta = %v", m)
	}
	if items := command(t, "batch", Full).InputSchema()["properties"].(map[string]any)["items"].(map[string]any); items["minItems"] != 1 {
		t.Errorf("items = %v, want minItems 1 for a required list", items)
	}
}

// formatDoc has an IP flag as fisk's full schema gives it and a URL flag.
const formatDoc = `{"name":"f","commands":[{"name":"dial","flags":[{"name":"ip"},{"name":"url"}],
 "schema":{"type":"object","additionalProperties":false,"properties":{"ip":{"type":"string","oneOf":[{"format":"ipv4"},{"format":"ipv6"}]},"url":{"type":"string","format":"uri-reference"}}},
 "restricted_schema":{"type":"object","additionalProperties":false,"properties":{"ip":{"type":"string"},"url":{"type":"string","format":"uri"}}}}]}`

func TestFullModeIPFlagsAcceptEitherFamilyAndRejectTheRest(t *testing.T) {
	c := model(t, formatDoc, "dial", nil, Full)
	for _, ip := range []string{"10.0.0.1", "::1", "2001:db8::1"} {
		if _, err := c.Render([]byte(`{"ip":"` + ip + `"}`)); err != nil {
			t.Errorf("%s: %v", ip, err)
		}
	}
	wantViolations(t, c, `{"ip":"nope"}`, `/ip: string "nope" is not a valid ipv4 or ipv6`)
}

func TestRestrictedModeAssertsTheURIFormatItAdvertises(t *testing.T) {
	c := model(t, formatDoc, "dial", nil, Restricted)
	if _, err := c.Render([]byte(`{"url":"nats://demo.nats.io:4222"}`)); err != nil {
		t.Fatal(err)
	}
	_, err := c.Render([]byte(`{"url":"/relative"}`))
	if err == nil || !strings.Contains(err.Error(), `/url: string "/relative" is not a valid uri`) {
		t.Fatalf("err = %v", err)
	}
}

func TestReadInputSchemaLendsWhatInputSchemaCopies(t *testing.T) {
	_, leaves := decodeLeaves(t, brokenDoc(`{"type":"string","enum":["a","b"]}`))
	c, err := NewCommand(leaves[0].Path, leaves[0].Command, nil, Restricted)
	if err != nil {
		t.Fatal(err)
	}
	var lent map[string]any
	c.ReadInputSchema(func(s map[string]any) { lent = s })
	if !reflect.DeepEqual(lent, c.InputSchema()) {
		t.Errorf("ReadInputSchema lends %v, InputSchema copies %v", lent, c.InputSchema())
	}
}

func TestRestrictedModeLeavesTheExactIntegerLimitUnsaid(t *testing.T) {
	// A uint64 flag as fisk describes it: its maximum is past ±2^53, the
	// limit every integer is held to, so only its minimum is said; a value
	// past the limit is still refused, the message naming the whole range.
	restricted := `{"type":"object","additionalProperties":false,"properties":{"f":{"type":"integer","description":"Bytes to keep"}}}`
	full := `{"type":"object","additionalProperties":false,"properties":{"f":{"type":"integer","description":"Bytes to keep","minimum":0,"maximum":18446744073709551615}}}`
	_, leaves := decodeLeaves(t, `{"name":"b","commands":[{"name":"keep","flags":[{"name":"f"}],"schema":`+full+`,"restricted_schema":`+restricted+`}]}`)
	c, err := NewCommand(leaves[0].Path, leaves[0].Command, nil, Restricted)
	if err != nil {
		t.Fatal(err)
	}
	f := c.InputSchema()["properties"].(map[string]any)["f"].(map[string]any)
	if f["description"] != "Bytes to keep (at least 0)" {
		t.Errorf("description = %q, want the flag's help and its minimum", f["description"])
	}
	wantViolations(t, c, `{"f":9007199254740993}`,
		"/f: 9007199254740993 is out of range: expected an integer from 0 to 9007199254740992")
}
