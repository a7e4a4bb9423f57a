package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var (
	durationRE = regexp.MustCompile(durationPattern)
	english    = message.NewPrinter(language.English)
)

// translate turns the schema library's error tree into violations worded
// for a model: what was expected, what was sent, and where.
// base is the pointer of the validated value within the arguments.
func translate(err *jsonschema.ValidationError, base string, value any, v *violations) {
	if k, ok := err.ErrorKind.(*kind.PropertyNames); ok {
		// The causes locate the failure at the object; the key is the place.
		ptr := base
		for _, tok := range err.InstanceLocation {
			ptr = pointer(ptr, tok)
		}
		v.add(pointer(ptr, k.Property), `a key cannot contain "=" or ":" (the flag takes key=value pairs); rename the key`)
		return
	}
	switch err.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
		if formats := alternatives(err); formats != nil {
			ptr := base
			for _, tok := range err.InstanceLocation {
				ptr = pointer(ptr, tok)
			}
			v.add(ptr, fmt.Sprintf("%s is not a valid %s", describe(lookup(value, err.InstanceLocation)), strings.Join(formats, " or ")))
			return
		}
	}
	if len(err.Causes) > 0 {
		for _, cause := range err.Causes {
			translate(cause, base, value, v)
		}
		return
	}
	ptr := base
	for _, tok := range err.InstanceLocation {
		ptr = pointer(ptr, tok)
	}
	got := lookup(value, err.InstanceLocation)
	switch k := err.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			v.add(pointer(ptr, name), "required property is missing")
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			v.add(pointer(ptr, name), "unknown property")
		}
	case *kind.Type:
		v.add(ptr, fmt.Sprintf("expected %s, got %s", strings.Join(k.Want, " or "), describe(got)))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = display(w)
		}
		v.add(ptr, fmt.Sprintf("expected one of %s, got %s", strings.Join(want, ", "), display(got)))
	case *kind.Const:
		v.add(ptr, fmt.Sprintf("expected %s, got %s", display(k.Want), describe(got)))
	case *kind.Pattern:
		v.add(ptr, fmt.Sprintf("%s does not match the pattern %s", quote(k.Got), k.Want))
	case *kind.MinItems:
		v.add(ptr, fmt.Sprintf("expected at least %d item(s), got %d", k.Want, k.Got))
	case *kind.Minimum:
		v.add(ptr, fmt.Sprintf("%s is less than the minimum %s", describe(got), ratText(k.Want)))
	case *kind.Maximum:
		v.add(ptr, fmt.Sprintf("%s is greater than the maximum %s", describe(got), ratText(k.Want)))
	case *kind.Format:
		v.add(ptr, fmt.Sprintf("%s is not a valid %s", describe(got), k.Want))
	default:
		v.add(ptr, err.ErrorKind.LocalizedString(english))
	}
}

// alternatives returns the formats of a oneOf/anyOf whose every branch
// failed on a format (fisk's IP flags: ipv4 or ipv6), or nil.
func alternatives(err *jsonschema.ValidationError) []string {
	var formats []string
	for _, cause := range err.Causes {
		f, ok := cause.ErrorKind.(*kind.Format)
		if !ok || len(cause.Causes) > 0 {
			return nil
		}
		formats = append(formats, f.Want)
	}
	return formats
}

// lookup finds the value at a location of the decoded input.
func lookup(v any, loc []string) any {
	for _, tok := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// describe names a value's JSON type and, for scalars, the value itself.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string " + quote(x)
	case json.Number:
		return "number " + truncate(x.String(), 40)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func display(v any) string {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	return fmt.Sprint(v)
}

// quote renders a string for a message: quoted, escaped, and shortened.
func quote(s string) string {
	return strconv.Quote(truncate(s, 60))
}
