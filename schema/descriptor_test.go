package schema

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// toolNameRE is what LLM tool APIs accept as a tool name.
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestToolNameKeepsAValidName(t *testing.T) {
	for _, name := range []string{"echo", "admin_user_add", "conflict_additive-destructive", "A", strings.Repeat("x", 64)} {
		if got := ToolName(name); got != name {
			t.Errorf("ToolName(%q) = %q", name, got)
		}
	}
}

func TestToolNameShortensLongNamesDeterministicallyWithAStableHash(t *testing.T) {
	long := "PREFIX_" + strings.Repeat("very_long_command_", 5)
	a, b := ToolName(long), ToolName(long)
	if a != b || len(a) != MaxToolName || !toolNameRE.MatchString(a) {
		t.Fatalf("ToolName = %q (len %d), again %q", a, len(a), b)
	}
	if !strings.HasPrefix(a, long[:55]) {
		t.Fatalf("%q does not keep the readable prefix", a)
	}
	// Names that share the kept prefix still differ.
	if other := ToolName(long + "x"); other == a {
		t.Fatalf("two long names collide: %q", a)
	}
	// Pinned: the suffix must never change between releases, or clients'
	// saved tool names break.
	if got := ToolName(strings.Repeat("a", 65)); got != strings.Repeat("a", 55)+"_"+"635361c4" {
		t.Fatalf("ToolName(65 a) = %q", got)
	}
}

func TestToolNameReplacesCharactersOutsideTheAlphabet(t *testing.T) {
	for _, name := range []string{"auth.user", "auth user", "héllo", "a/b", ""} {
		got := ToolName(name)
		if !toolNameRE.MatchString(got) {
			t.Errorf("ToolName(%q) = %q does not fit", name, got)
		}
	}
	if ToolName("auth.user") == ToolName("auth_user") || ToolName("auth.user") == ToolName("auth:user") {
		t.Fatal("sanitised names collide with each other or with a valid name")
	}
}

func TestDescriptionForDerivesOneFromThePathWhenHelpIsBlank(t *testing.T) {
	if got := DescriptionFor([]string{"admin", "user", "list"}, " \n"); got != `Runs the "admin user list" command.` {
		t.Fatalf("got %q", got)
	}
	if got := DescriptionFor([]string{"echo"}, " Echo things\n"); got != "Echo things" {
		t.Fatalf("got %q", got)
	}
}

func TestValidateDescriptorAcceptsEveryFixtureTool(t *testing.T) {
	for _, path := range []string{"echo", "status", "admin user list", "batch"} {
		c := command(t, path, Restricted)
		l := leaf(t, path)
		if err := ValidateDescriptor(ToolName(l.Name()), DescriptionFor(l.Path, l.Command.Help), c.InputSchema()); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func TestValidateDescriptorListsEveryProblem(t *testing.T) {
	for _, tc := range []struct {
		name, description string
		schema            map[string]any
		want              []string
	}{
		{"", "d", map[string]any{"type": "object"}, []string{"the name must be 1 to 64 characters"}},
		{strings.Repeat("x", 65), "d", map[string]any{"type": "object"}, []string{"the name must be"}},
		{"a.b", " ", nil, []string{"the name must be", "the description is empty", "the input schema is missing"}},
		{"ok", "d", map[string]any{"type": "array"}, []string{`root type must be "object", not "array"`}},
		{"ok", "d", map[string]any{}, []string{`no root type; it must be "object"`}},
		{"ok", "d", map[string]any{"type": "object", "properties": []any{}}, []string{`"properties" must be an object`}},
	} {
		err := ValidateDescriptor(tc.name, tc.description, tc.schema)
		if !errors.Is(err, ErrInvalidDescriptor) {
			t.Fatalf("%q: err = %v, want ErrInvalidDescriptor", tc.name, err)
		}
		for _, want := range tc.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q: error %q does not mention %q", tc.name, err, want)
			}
		}
	}
}
