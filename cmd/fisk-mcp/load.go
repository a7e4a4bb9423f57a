package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"

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
	env    []string // the scrubbed environment, for introspection too
}

func newLoader(p *plan) loader {
	return loader{apps: p.Apps, policy: p.Policy, env: execrunner.Environ(os.Environ(), p.ScrubEnv)}
}

// load introspects every app and builds the set; a name collision fails it.
func (l loader) load(ctx context.Context) (*exposure.ToolSet, error) {
	return exposure.Load(ctx, l.apps, nil, l.policy, exposure.LoadOptions{
		Introspect: introspect.Options{Env: l.env},
	})
}

// reload introspects every app and builds the set that replaces current, the
// set being served: a collision skips and records the newcomer instead of
// failing, and a tool current serves keeps its name (see exposure.Rebuild).
func (l loader) reload(ctx context.Context, current *exposure.ToolSet) (*exposure.ToolSet, error) {
	return exposure.Load(ctx, l.apps, nil, l.policy, exposure.LoadOptions{
		Introspect: introspect.Options{Env: l.env},
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

// toolsOf returns the tools of set that came from app.
func toolsOf(set *exposure.ToolSet, app exposure.App, all []exposure.App) []exposure.Tool {
	shared := 0
	for _, a := range all {
		if a.Path == app.Path {
			shared++
		}
	}
	var out []exposure.Tool
	for _, t := range set.Tools() {
		src, ok := t.(exposure.Sourced)
		if !ok || src.Source() != app.Path {
			continue
		}
		// Two apps may be the same binary under different prefixes.
		if shared > 1 && app.Prefix != "" && !strings.HasPrefix(t.Name(), app.Prefix+"_") {
			continue
		}
		out = append(out, t)
	}
	return out
}

// appLabel names an app in listings: its prefix, else its binary's name.
func appLabel(t exposure.Tool, apps []exposure.App) string {
	src, ok := t.(exposure.Sourced)
	if !ok {
		return string(exposure.KindOf(t))
	}
	for _, a := range apps {
		if a.Path == src.Source() && a.Prefix != "" && strings.HasPrefix(t.Name(), a.Prefix+"_") {
			return a.Prefix
		}
	}
	return filepath.Base(src.Source())
}

// gateOf reports the trigger tag of a gated tool, "" for an ungated one.
func gateOf(t exposure.Tool) (trigger string, gated bool) {
	c, ok := t.(exposure.Confirmable)
	if !ok {
		// The server refuses such a tool; show it as gated by nothing known.
		return "(unknown: refused)", true
	}
	return c.ConfirmTrigger(), c.NeedsConfirm()
}

// behaviourWords describes a tool's behaviour for people: read-only,
// additive or destructive, then idempotent and closed-world when they hold.
func behaviourWords(b exposure.Behavior) string {
	words := "additive"
	switch {
	case b.ReadOnly:
		words = "read-only"
	case b.Destructive:
		words = "destructive"
	}
	if b.Idempotent {
		words += ", idempotent"
	}
	if !b.OpenWorld {
		words += ", closed-world"
	}
	return words
}
