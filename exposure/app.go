package exposure

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// AbsoluteApps renders APP arguments (PATH or PREFIX=PATH) with absolute
// binary paths, resolved as ResolveBinary does.
func AbsoluteApps(apps []string) ([]string, error) {
	out := make([]string, 0, len(apps))
	for _, a := range apps {
		app, err := ParseApp(a)
		if err != nil {
			return nil, err
		}
		abs, err := ResolveBinary(app.Path)
		if err != nil {
			return nil, err
		}
		if app.Prefix != "" {
			abs = app.Prefix + "=" + abs
		}
		out = append(out, abs)
	}
	return out, nil
}

// ResolveBinary makes an app path absolute (bare names are looked up in
// PATH) and checks that it is an executable file, so a typo fails at startup
// rather than on the first call.
func ResolveBinary(path string) (string, error) {
	if !strings.ContainsRune(path, filepath.Separator) {
		found, err := exec.LookPath(path)
		if err != nil {
			return "", notInPath(path)
		}
		path = found
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("app %q: %w", path, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("app %q: %w; pass the path to a fisk binary", path, unwrapPathError(err))
	case fi.IsDir():
		return "", fmt.Errorf("app %q is a directory; pass the path to a fisk binary", path)
	case fi.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("app %q is not executable; chmod +x it or pass a fisk binary", path)
	}
	return abs, nil
}

// notInPath explains a bare name PATH does not have, naming what the
// working directory holds by that name: a bare name is never looked up
// there, as a shell would not.
func notInPath(name string) error {
	fi, err := os.Stat(name)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("app %q: not found in PATH, and ./%s is a directory; pass the path to a fisk binary", name, name)
	case err == nil:
		return fmt.Errorf("app %q: not found in PATH; for the file in this directory write ./%s", name, name)
	}
	return fmt.Errorf("app %q: not found in PATH; pass the path to a fisk binary", name)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
