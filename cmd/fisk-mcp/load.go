package main

import (
	"context"
	"os"

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
}

// newLoader returns the loader of p, in fisk-mcp's environment plus extra
// (KEY=VALUE; a client's configuration adds its own).
func newLoader(p *plan, extra ...string) loader {
	return loader{
		apps: p.Apps, policy: p.Policy,
		env: execrunner.NewEnvironment(append(os.Environ(), extra...), execrunner.EnvRule{Scrub: p.ScrubEnv, Keep: p.KeepEnv}),
	}
}

// load introspects every app and builds the set; a name collision fails it.
func (l loader) load(ctx context.Context) (*exposure.ToolSet, error) {
	return exposure.Load(ctx, l.apps, nil, l.policy, exposure.LoadOptions{
		Introspect: introspect.Options{Env: l.env.For(nil)},
	})
}

// reload introspects every app and builds the set that replaces current, the
// set being served: a collision skips and records the newcomer instead of
// failing, and a tool current serves keeps its name (see exposure.Rebuild).
func (l loader) reload(ctx context.Context, current *exposure.ToolSet) (*exposure.ToolSet, error) {
	return exposure.Load(ctx, l.apps, nil, l.policy, exposure.LoadOptions{
		Introspect: introspect.Options{Env: l.env.For(nil)},
		Reload:     true,
		Previous:   current,
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
