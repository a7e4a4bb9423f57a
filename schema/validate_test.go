package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// wantViolations renders in and requires exactly the given violations,
// each written as "pointer: message" (or "arguments: message" for the root).
func wantViolations(t *testing.T, c *Command, in string, want ...string) {
	t.Helper()
	_, err := c.Render(json.RawMessage(in))
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Render(%s) err = %v, want a *ValidationError", in, err)
	}
	var got []string
	for _, v := range verr.Violations {
		got = append(got, v.String())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Render(%s) violations:\n  %s\nwant:\n  %s", in, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if err := c.Validate(json.RawMessage(in)); err == nil || err.Error() != verr.Error() {
		t.Fatalf("Validate disagrees with Render: %v", err)
	}
}

func echo(t *testing.T) *Command { return command(t, "echo", Restricted) }

func TestValidateReportsTypeMismatchWithPointerExpectedAndGot(t *testing.T) {
	wantViolations(t, echo(t), `{"context":"c","subject":"s","count":"x"}`, `/count: expected integer, got string "x"`)
}

func TestValidateReportsUnknownPropertyWithTheKnownOnes(t *testing.T) {
	wantViolations(t, echo(t), `{"context":"c","subject":"s","nope":1}`,
		"/nope: unknown property; known properties are: body, cache, color, context, count, follow, force, label, limit, meta, mode, ratio, size, subject, verbose, wait")
}

// A message shows the caller's keys escaped when they hold a control or
// format character, and shortened; it lists the first violations of a
// call that gives many, and says how many more there are.
func TestValidationMessagesShowTheCallersKeysSafelyAndBounded(t *testing.T) {
	c := echo(t)
	err := c.Validate(json.RawMessage(`{"context":"c","subject":"s","\u001b[31mred\u202e":1}`))
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\u202e") || !strings.Contains(err.Error(), `"/\x1b[31mred\u202e": unknown property`) {
		t.Errorf("a key with control characters: %q", err)
	}
	long := strings.Repeat("k", 5000)
	err = c.Validate(json.RawMessage(`{"context":"c","subject":"s","` + long + `":1}`))
	if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "/"+strings.Repeat("k", maxShownPointer-1)+"…: unknown property") {
		t.Errorf("a 5,000-byte key: %d bytes: %.200q", len(err.Error()), err)
	}
	var many strings.Builder
	many.WriteString(`{"context":"c","subject":"s"`)
	for i := range 500 {
		fmt.Fprintf(&many, `,"unknown%03d":1`, i)
	}
	many.WriteString("}")
	err = c.Validate(json.RawMessage(many.String()))
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) != 500 {
		t.Fatalf("500 unknown keys: %v", err)
	}
	msg := err.Error()
	if lines := strings.Count(msg, "\n"); lines != maxShownViolations+1 || !strings.HasPrefix(msg, "invalid arguments (500 problems):\n/unknown000: ") || !strings.HasSuffix(msg, "\nand 480 more") {
		t.Errorf("500 unknown keys: %d lines, %d bytes:\n%.300s\n...%s", lines, len(msg), msg, msg[max(0, len(msg)-80):])
	}
}

func TestValidateRejectsHiddenFlagsAsUnknownWithoutNamingThem(t *testing.T) {
	_, err := echo(t).Render(json.RawMessage(`{"context":"c","subject":"s","debug-token":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "/debug-token: unknown property") {
		t.Fatalf("err = %v", err)
	}
	if strings.Count(err.Error(), "debug-token") != 1 {
		t.Fatalf("the known-properties list reveals the hidden flag: %v", err)
	}
}

func TestValidateRejectsNullWhereTheSchemaDoesNotAllowIt(t *testing.T) {
	wantViolations(t, echo(t), `{"context":null,"subject":"s","label":["a",null],"meta":{"k":null}}`,
		"/context: null is not allowed; omit the property to leave it unset",
		"/label/1: null is not allowed in the list; remove it",
		"/meta/k: null is not allowed; give a string value or omit the key")
}

func TestRenderRejectsAPositionalThatIsExactlyDoubleDash(t *testing.T) {
	wantViolations(t, echo(t), `{"context":"c","subject":"--"}`, `/subject: "--" cannot be passed as a positional value: the command line would drop it`)
	wantViolations(t, command(t, "batch", Restricted), `{"context":"c","items":["a","--","b"]}`,
		`/items/1: "--" cannot be passed as a positional value: the command line would drop it`)
	// As a flag value it is harmless: it stays inside --label=--.
	if _, err := echo(t).Render(json.RawMessage(`{"context":"c","subject":"s","label":["--"]}`)); err != nil {
		t.Fatal(err)
	}
}

func TestValidateRejectsIntegersOutsideTheExactRange(t *testing.T) {
	const msg = "is out of range: expected an integer from -9007199254740992 to 9007199254740992"
	wantViolations(t, echo(t), `{"context":"c","subject":"s","limit":9223372036854775808,"count":-9007199254740993}`,
		"/count: -9007199254740993 "+msg, "/limit: 9223372036854775808 "+msg)
}

func TestValidateRejectsIntegersOutsideTheFlagsTypeRangeEvenInRestrictedMode(t *testing.T) {
	for _, mode := range []Mode{Restricted, Full} {
		wantViolations(t, command(t, "echo", mode), `{"context":"c","subject":"s","size":65536}`,
			"/size: 65536 is out of range: expected an integer from 0 to 65535")
		wantViolations(t, command(t, "echo", mode), `{"context":"c","subject":"s","size":-1}`,
			"/size: -1 is out of range: expected an integer from 0 to 65535")
	}
}

func TestValidateRejectsFloatsOutOfRange(t *testing.T) {
	wantViolations(t, echo(t), `{"context":"c","subject":"s","ratio":1e309}`, "/ratio: 1e309 is out of range for a floating-point number")
}

func TestValidateRejectsAbsurdNumberLiteralsBeforeDoingArithmetic(t *testing.T) {
	long := "1" + strings.Repeat("0", 200)
	wantViolations(t, echo(t), `{"context":"c","subject":"s","limit":1e999999,"count":`+long+`}`,
		"/count: the number "+long[:40]+"… is out of range for any command-line value",
		"/limit: the number 1e999999 is out of range for any command-line value")
}

func TestValidateRejectsCounterOutsideZeroToMax(t *testing.T) {
	for _, n := range []string{"-1", "101"} {
		wantViolations(t, echo(t), `{"context":"c","subject":"s","verbose":`+n+`}`,
			fmt.Sprintf("/verbose: %s is out of range: expected a count from 0 to %d", n, MaxCounter))
	}
	wantViolations(t, echo(t), `{"context":"c","subject":"s","verbose":[1,2]}`, "/verbose: expected integer, got array")
}

func TestValidateRejectsFalseForAnUnnegatableFlagThatDefaultsToTrue(t *testing.T) {
	wantViolations(t, echo(t), `{"context":"c","subject":"s","follow":false}`,
		"/follow: cannot be false: the flag is on by default and has no negation; omit it")
}

func TestValidateRejectsMapKeysContainingEqualsOrColon(t *testing.T) {
	for _, mode := range []Mode{Restricted, Full} {
		wantViolations(t, command(t, "echo", mode), `{"context":"c","subject":"s","meta":{"a=b":"1","c:d":"2","ok":"3"}}`,
			`/meta/a=b: a key cannot contain "=" or ":" (the flag takes key=value pairs); rename the key`,
			`/meta/c:d: a key cannot contain "=" or ":" (the flag takes key=value pairs); rename the key`)
	}
}

func TestValidateRequiresMapValuesToBeStrings(t *testing.T) {
	wantViolations(t, echo(t), `{"context":"c","subject":"s","meta":{"n":1}}`, "/meta/n: expected string, got number 1")
}

func TestValidateRejectsNULCharacters(t *testing.T) {
	wantViolations(t, echo(t), `{"context":"c","subject":"a\u0000b"}`,
		`/subject: cannot contain a NUL character (\u0000): it cannot be passed on a command line`)
}

func TestValidateRejectsDurationsFiskCannotParse(t *testing.T) {
	const msg = ` is not a duration; use a number and a unit (ns, us, ms, s, m, h), such as "30s", "1h30m" or "250ms"`
	wantViolations(t, echo(t), `{"context":"c","subject":"s","wait":"5µs"}`, `/wait: "5µs"`+msg)
	wantViolations(t, echo(t), `{"context":"c","subject":"s","wait":"soon"}`, `/wait: "soon"`+msg)
}

func TestValidateRejectsValuesOutsideAnEnum(t *testing.T) {
	wantViolations(t, echo(t), `{"context":"c","subject":"s","mode":"turbo"}`, `/mode: expected one of "fast", "slow", "auto", got "turbo"`)
}

func TestValidateReportsMissingRequiredProperties(t *testing.T) {
	wantViolations(t, echo(t), `{}`, "/context: required property is missing", "/subject: required property is missing")
	wantViolations(t, command(t, "batch", Restricted), `{"context":"c","items":[]}`, "/items: expected at least 1 item(s), got 0")
}

func TestValidateListsEveryViolationSortedByPointer(t *testing.T) {
	wantViolations(t, echo(t), `{"subject":"--","count":"x","size":70000,"nope":true,"follow":false,"wait":"x"}`,
		"/context: required property is missing",
		`/count: expected integer, got string "x"`,
		"/follow: cannot be false: the flag is on by default and has no negation; omit it",
		"/nope: unknown property; known properties are: body, cache, color, context, count, follow, force, label, limit, meta, mode, ratio, size, subject, verbose, wait",
		"/size: 70000 is out of range: expected an integer from 0 to 65535",
		`/subject: "--" cannot be passed as a positional value: the command line would drop it`,
		`/wait: "x" is not a duration; use a number and a unit (ns, us, ms, s, m, h), such as "30s", "1h30m" or "250ms"`)
}

func TestValidateIsStrictAboutJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"context":"c","subject":"s"} {"subject":"t"}`, "arguments: unexpected data after the JSON object; send exactly one object"},
		{`{"context":"c","subject":"s"} x`, "arguments: unexpected data after the JSON object; send exactly one object"},
		{`[]`, `arguments: expected a JSON object, got an array; send the arguments as an object such as {"name": "value"} ({} for none)`},
		{`null`, `arguments: expected a JSON object, got null; send the arguments as an object such as {"name": "value"} ({} for none)`},
		{`"s"`, `arguments: expected a JSON object, got a string; send the arguments as an object such as {"name": "value"} ({} for none)`},
		{`{"context":"c",`, "arguments: not valid JSON: the object is incomplete"},
		{`{"context":"c",}`, "arguments: not valid JSON: invalid character '}' looking for beginning of object key string"},
		{"{\"context\":\"\xff\"}", "arguments: not valid UTF-8; send the arguments as a UTF-8 JSON object"},
		{`{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, fmt.Sprintf("arguments: the JSON is nested deeper than %d levels; no argument nests that deep", maxDepth)},
	} {
		wantViolations(t, echo(t), tc.in, tc.want)
	}
}

func TestValidateRejectsDuplicateKeys(t *testing.T) {
	wantViolations(t, echo(t), `{"context":"c","subject":"s","subject":"t","meta":{"k":"1","k":"2"}}`,
		"/meta/k: duplicate property: the object sets it more than once; send it once",
		"/subject: duplicate property: the object sets it more than once; send it once")
}

func TestValidationErrorReadsAsOneLinePerViolation(t *testing.T) {
	_, err := echo(t).Render(json.RawMessage(`{"subject":"s","count":"x"}`))
	want := "invalid arguments (2 problems):\n/context: required property is missing\n/count: expected integer, got string \"x\""
	if err == nil || err.Error() != want {
		t.Fatalf("err = %q\nwant  %q", err, want)
	}
	_, err = echo(t).Render(json.RawMessage(`{"subject":"s"}`))
	if err == nil || err.Error() != "invalid arguments: /context: required property is missing" {
		t.Fatalf("err = %q", err)
	}
}

func TestValidatePointersEscapeSlashAndTilde(t *testing.T) {
	wantViolations(t, echo(t), `{"context":"c","subject":"s","a/b~c":1}`,
		"/a~1b~0c: unknown property; known properties are: body, cache, color, context, count, follow, force, label, limit, meta, mode, ratio, size, subject, verbose, wait")
}
