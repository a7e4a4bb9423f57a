package exposure

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/introspect"
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

// LoadedApp is an App together with its introspected model.
type LoadedApp struct {
	App
	Model *fisk.ApplicationModel
}

// LoadOptions controls Load.
type LoadOptions struct {
	// Introspect is passed to introspect.Load for every app (environment,
	// timeout, size bound). A nil Introspect.Env means
	// execrunner.Environ(os.Environ(), nil): the server's environment
	// without the built-in credential variables, plus LLMFORMAT=1, as a
	// command would get it. introspect's own nil default is the unscrubbed
	// os.Environ(), which would hand the server's LLM and cloud keys to
	// every binary it introspects. A caller with a scrub list (--scrub-env)
	// passes execrunner.Environ(os.Environ(), scrub), used as given.
	Introspect introspect.Options
	// Reload selects live-reload semantics: a name collision skips the later
	// tool and records it in ToolSet.Skipped instead of failing the load.
	Reload bool
	// Previous is the set in force when reloading. A tool it serves keeps
	// its name, and a newcomer claiming that name is skipped (see Rebuild).
	// A non-nil Previous implies Reload.
	Previous *ToolSet
}

// Load introspects every app (concurrently; results keep the configured
// order), in a scrubbed environment unless o says otherwise (see
// LoadOptions.Introspect), and builds the tool set from them and the custom
// tools. The first
// failing app in configured order is reported, so the error does not depend
// on which introspection finished first; it is the *introspect.Error, which
// names the binary.
func Load(ctx context.Context, apps []App, custom []Tool, p Policy, o LoadOptions) (*ToolSet, error) {
	loaded := make([]LoadedApp, len(apps))
	errs := make([]error, len(apps))
	var wg sync.WaitGroup
	for _, a := range apps {
		if err := a.validate(); err != nil {
			return nil, err
		}
	}
	if o.Introspect.Env == nil {
		o.Introspect.Env = execrunner.Environ(os.Environ(), nil)
	}
	for i, a := range apps {
		loaded[i].App = a
		wg.Go(func() {
			loaded[i].Model, errs[i] = introspect.Load(ctx, a.Path, o.Introspect)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if o.Previous != nil {
		return Rebuild(loaded, custom, p, o.Previous)
	}
	return Build(loaded, custom, p, o.Reload)
}
