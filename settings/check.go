package settings

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// CheckEnums reports every setting with an Enum whose value is not one of
// it, named as [Set.Named] names it.
func (set *Set) CheckEnums() []error {
	var errs []error
	for _, s := range set.List {
		if v, ok := s.Value.(*string); ok && s.Enum != nil && !slices.Contains(s.Enum, *v) {
			errs = append(errs, fmt.Errorf("%s %q: use one of %s", set.Named(s.Name), *v, strings.Join(s.Enum, ", ")))
		}
	}
	return errs
}

// CheckFlagNames reports every entry of the list setting name that is not
// a flag's bare name (empty, or written with dashes); example is a name
// the message offers, e.g. "context".
func (set *Set) CheckFlagNames(name string, names []string, example string) []error {
	var errs []error
	for i, n := range names {
		if n == "" || strings.HasPrefix(n, "-") {
			errs = append(errs, fmt.Errorf("%s %q: give the flag's name without dashes, e.g. --%s %s", set.Item(name)(i), n, name, example))
		}
	}
	return errs
}

// Regexps compiles regular expressions, reporting each bad one with its
// position in the syntax; what names the setting entry i came from (see
// [Set.Item]).
func Regexps(what func(i int) string, exprs []string) ([]*regexp.Regexp, []error) {
	var out []*regexp.Regexp
	var errs []error
	for i, e := range exprs {
		re, err := regexp.Compile(e)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q is not a valid regular expression (%v); fix it (Go RE2 syntax)", what(i), e, unwrapRegexp(err)))
			continue
		}
		out = append(out, re)
	}
	return out, errs
}

func unwrapRegexp(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return string(se.Code) + ": " + se.Expr
	}
	return err.Error()
}

// Problems reports every error at once, one per line, so a bad command
// line is fixed in one go rather than one complaint at a time; joined
// errors (errors.Join) count one per part. It returns nil for none.
func Problems(errs []error) error {
	var flat []error
	for _, err := range errs {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			flat = append(flat, j.Unwrap()...)
		} else if err != nil {
			flat = append(flat, err)
		}
	}
	switch len(flat) {
	case 0:
		return nil
	case 1:
		return flat[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems:", len(flat))
	for _, err := range flat {
		b.WriteString("\n  - ")
		b.WriteString(err.Error())
	}
	return errors.New(b.String())
}
