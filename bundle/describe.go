package bundle

import (
	"context"
	"fmt"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// Load introspects every app, one at a time, in env (the introspection
// environment of fisk-mcp serve), builds the set serve would serve under
// p, and describes s by them (see Describe).
func (s *Spec) Load(ctx context.Context, apps []exposure.App, p exposure.Policy, env []string) error {
	loaded := make([]exposure.LoadedApp, len(apps))
	for i, a := range apps {
		m, err := introspect.Load(ctx, a.Path, introspect.Options{Env: env})
		if err != nil {
			return err
		}
		loaded[i] = exposure.LoadedApp{App: a, Model: m}
	}
	set, err := exposure.Build(loaded, nil, p)
	if err != nil {
		return err
	}
	return s.Describe(loaded, set, p.SecretFlags)
}

// Describe fills what s says about the loaded apps and their set, and
// leaves what is set: the tools, the display name (the apps' names), the description (the single app's
// help), the author and the version (the single app's, when semantic), and
// the variables their flags read (see Variables), with the operator's
// secretFlags. A bundle of several apps needs Version set, as no app's
// version is the bundle's.
func (s *Spec) Describe(loaded []exposure.LoadedApp, set *exposure.ToolSet, secretFlags []string) error {
	s.Tools = Tools(set)
	var names []string
	for _, a := range loaded {
		s.Env = Merge(s.Env, Variables(a.Model.Name, a.Model, secretFlags))
		names = append(names, a.Model.Name)
		if s.Author == "" {
			s.Author = a.Model.Author
		}
	}
	if s.DisplayName == "" {
		s.DisplayName = strings.Join(names, ", ")
	}
	if s.Description == "" && len(loaded) == 1 {
		s.Description = loaded[0].Model.Help
	}
	if s.Description == "" {
		s.Description = "The commands of " + s.DisplayName + " as MCP tools"
	}
	if v, ok := SemVer(loaded[0].Model.Version); s.Version == "" && ok && len(loaded) == 1 {
		s.Version = v
	} else if s.Version == "" {
		return fmt.Errorf("the bundle needs a semantic version, and %s gives none; pass --bundle-version X.Y.Z", s.DisplayName)
	}
	return nil
}

// Notes are what the person building s should know: its gated tools,
// which Claude Desktop cannot have approved.
func (s Spec) Notes() []string {
	if n := s.Gated(); n > 0 {
		return []string{fmt.Sprintf("%d tools are gated, and Claude Desktop cannot ask a person to approve them (it has no elicitation): their calls are refused", n)}
	}
	return nil
}
