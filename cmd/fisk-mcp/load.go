package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// loader builds tool sets from a plan. The same loader serves the first load
// and every reload, so a reload cannot differ from startup in anything but
// the binaries.
type loader struct {
	apps   []exposure.App
	policy exposure.Policy
	env    *execrunner.Environment // the commands' environment; introspection gets its common part
	cache  string                  // where binaries' content hashes are kept; "": nowhere
}

// newLoader returns the loader of p, in fisk-mcp's environment plus extra
// (KEY=VALUE; a client's configuration adds its own).
func newLoader(p *plan, extra ...string) loader {
	return loader{
		apps: p.Apps, policy: p.Policy,
		env:   execrunner.NewEnvironment(append(os.Environ(), extra...), execrunner.EnvRule{Scrub: p.ScrubEnv, Keep: p.KeepEnv}),
		cache: contentCacheDir(),
	}
}

// contentCacheDir is where loads keep the content hashes of binaries (see
// exposure.LoadOptions.ContentCache): fisk-mcp/content under the user's
// cache directory ($XDG_CACHE_HOME or ~/.cache; ~/Library/Caches on
// macOS), or nowhere when there is none.
func contentCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "fisk-mcp", "content")
}

// load introspects every app and builds the set; a name collision fails it.
// document, when not nil, is given each app's document before it is
// decoded (see exposure.LoadOptions.Document).
func (l loader) load(ctx context.Context, document func(app int, doc []byte)) (*exposure.ToolSet, error) {
	return exposure.Load(ctx, l.apps, nil, l.policy, exposure.LoadOptions{
		Introspect:   introspect.Options{Env: l.env.For(nil)},
		ContentCache: l.cache,
		Document:     document,
	})
}

// reload introspects every app and builds the set that replaces current, the
// set being served: a collision skips and records the newcomer instead of
// failing, and a tool current serves keeps its name (see exposure.Rebuild).
func (l loader) reload(ctx context.Context, current *exposure.ToolSet) (*exposure.ToolSet, error) {
	return exposure.Load(ctx, l.apps, nil, l.policy, exposure.LoadOptions{
		Introspect:   introspect.Options{Env: l.env.For(nil)},
		Reload:       true,
		Previous:     current,
		ContentCache: l.cache,
	})
}

// paths lists the binaries to watch.
func (l loader) paths() []string {
	out := make([]string, 0, len(l.apps))
	for _, a := range l.apps {
		out = append(out, a.Path)
	}
	return out
}
