package bundle

import (
	"fmt"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// Describe fills what s says about the loaded apps and leaves what is set:
// the display name (the apps' names), the description (the single app's
// help), the author and the version (the single app's, when semantic), and
// the variables their flags read (see Variables), with the operator's
// secretFlags. A bundle of several apps needs Version set, as no app's
// version is the bundle's.
func (s *Spec) Describe(loaded []exposure.LoadedApp, secretFlags []string) error {
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
