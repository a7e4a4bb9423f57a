package exposure

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// App is one fisk application to expose.
type App struct {
	// Prefix, when not empty, is prepended to every tool name of the app as
	// "PREFIX_"; it keeps two apps with the same commands apart.
	Prefix string
	// Path is the fisk binary.
	Path string
	// Globals names the application-level flags to expose on every tool of
	// the app. Required globals are always exposed.
	Globals []string

	// Include, Exclude, IncludeTags and ExcludeTags select among this
	// app's commands only, with the meaning of the Policy fields of the
	// same names, and in addition to them: a command is a tool only when
	// it passes both. Like the policy's, they are applied before names are
	// claimed, so excluding one of two clashing commands settles the
	// collision.
	Include, Exclude         []*regexp.Regexp
	IncludeTags, ExcludeTags []string
}

var prefixPattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ParseApp parses an application argument: "PATH" or "PREFIX=PATH". A part
// before "=" that contains a slash is taken as part of the path, so a path
// that happens to contain "=" still works when written with a directory.
func ParseApp(spec string) (App, error) {
	prefix, path, found := strings.Cut(spec, "=")
	if !found || strings.Contains(prefix, "/") {
		prefix, path, found = "", spec, false
	}
	a := App{Prefix: prefix, Path: path}
	if found && prefix == "" {
		return App{}, fmt.Errorf("application %q: empty prefix before \"=\"; write PREFIX=PATH or just PATH", spec)
	}
	if err := a.validate(); err != nil {
		return App{}, err
	}
	return a, nil
}

func (a App) validate() error {
	if a.Path == "" {
		return fmt.Errorf("application %q: empty path; write PATH or PREFIX=PATH", a.label())
	}
	if a.Prefix != "" && !prefixPattern.MatchString(a.Prefix) {
		return fmt.Errorf("application %q: prefix %q must match %s (it becomes part of tool names)", a.label(), a.Prefix, prefixPattern)
	}
	if slices.Contains(a.Include, nil) || slices.Contains(a.Exclude, nil) {
		return fmt.Errorf("application %q: nil name filter expression", a.label())
	}
	return nil
}

// selection is the app's own layer of filters, with reserved tags in their
// canonical spelling (see Policy.canonical).
func (a App) selection() selection {
	return selection{a.Include, a.Exclude, canonicalTags(a.IncludeTags), canonicalTags(a.ExcludeTags)}
}

// label names the app in messages as the operator wrote it.
func (a App) label() string {
	if a.Prefix == "" {
		return a.Path
	}
	return a.Prefix + "=" + a.Path
}
