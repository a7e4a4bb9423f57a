package plan

import (
	"context"
	"os"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// Loader builds tool sets from a plan. The same Loader serves the first load
// and every reload, so a reload cannot differ from startup in anything but
// the binaries.
type Loader struct {
	Apps   []exposure.App
	Policy exposure.Policy
	Env    *execrunner.Environment // the commands' environment; introspection gets its common part
}

// NewLoader returns the Loader of p, in fisk-mcp's environment plus extra
// (KEY=VALUE; a client's configuration adds its own).
func NewLoader(p *Plan, extra ...string) Loader {
	return Loader{
		Apps: p.Apps, Policy: p.Policy,
		Env: execrunner.NewEnvironment(append(os.Environ(), extra...), execrunner.EnvRule{Scrub: p.ScrubEnv, Keep: p.KeepEnv}),
	}
}

// Load introspects every app and builds the set; a name collision fails it.
func (l Loader) Load(ctx context.Context) (*exposure.ToolSet, error) {
	return exposure.Load(ctx, l.Apps, nil, l.Policy, exposure.LoadOptions{
		Introspect: introspect.Options{Env: l.Env.For(nil)},
	})
}

// Reload introspects every app and builds the set that replaces current, the
// set being served: a collision skips and records the newcomer instead of
// failing, and a tool current serves keeps its name (see exposure.Rebuild).
func (l Loader) Reload(ctx context.Context, current *exposure.ToolSet) (*exposure.ToolSet, error) {
	return exposure.Load(ctx, l.Apps, nil, l.Policy, exposure.LoadOptions{
		Introspect: introspect.Options{Env: l.Env.For(nil)},
		Reload:     true,
		Previous:   current,
	})
}

// Paths lists the binaries to watch.
func (l Loader) Paths() []string {
	out := make([]string, 0, len(l.Apps))
	for _, a := range l.Apps {
		out = append(out, a.Path)
	}
	return out
}
