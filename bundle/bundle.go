// Package bundle writes MCP Bundles: the .mcpb zip archive that Claude
// Desktop installs with a double click (manifest format 0.3 of
// github.com/modelcontextprotocol/mcpb). A bundle holds its manifest, the
// fisk-mcp executable that builds it, and the fisk apps it serves (or
// refers to apps installed on the person's machine), and starts
// "fisk-mcp serve" over stdio with the settings it was built with.
//
// What the person must supply on their own machine — the environment
// variables an app declares for its application-level flags, such as a
// server URL or a credentials file — becomes the manifest's user_config,
// which Claude Desktop asks for in the extension's settings and hands the
// server in its environment, never in its arguments: arguments are visible
// to every process of the machine, while Claude Desktop masks a sensitive
// entry and stores it securely.
//
// A bundle is byte-identical for the same inputs: the entries are written
// in a fixed order with a fixed time and fixed modes, and nothing of the
// machine that builds it goes in but the apps' paths a bundle refers to
// (see App.Installed).
//
// The package does not decide what is served: it builds the tool set from
// the caller's apps and policy as serve does, and carries the caller's
// serving arguments as they are. It does not sign bundles (mcpb sign
// does), and builds only for the machine it runs on: the binaries it packs
// are the ones that run here.
package bundle

import (
	"cmp"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// ManifestVersion is the manifest format written.
const ManifestVersion = "0.3"

// The paths of the bundle's files, and how its manifest names its own
// directory (Claude Desktop substitutes where it unpacked the bundle).
const (
	ManifestName = "manifest.json"
	ServerPath   = "server/fisk-mcp"
	appsDir      = "apps"
	Dirname      = "${__dirname}"
)

// Spec is what a bundle is built from.
type Spec struct {
	// Name is the bundle's and the server's machine-readable name.
	Name string
	// DisplayName names it to people; default Name.
	DisplayName string
	// Version is the bundle's version, semver.
	Version string
	// Description says in a sentence what it serves; Author who made it.
	Description, Author string
	// Platform is what Server and the copied apps run on (see Host).
	Platform Platform
	// Server is the fisk-mcp executable to pack, and ServerVersion its
	// version, recorded in the manifest.
	Server, ServerVersion string
	// ServeArgs are fisk-mcp serve's flags, without the apps. They are
	// visible to every process of the machine: no secret belongs here,
	// nor "${" (see ErrSubstituted).
	ServeArgs []string
	// Apps are the apps to serve, in order.
	Apps []App
	// Tools are the tools the server serves, for the manifest.
	Tools []Tool
	// Env is what the apps need from the person's environment (see
	// UserConfig).
	Env []Variable
}

// App is one fisk app of a bundle.
type App struct {
	// Prefix prefixes its tool names, as PREFIX=PATH does; "" for none.
	Prefix string
	// Path is the app's absolute path on this machine.
	Path string
	// Installed refers to Path on the person's machine instead of copying
	// the binary into the bundle: for an app they install and update
	// themselves, at the same path.
	Installed bool
}

// Tool is a tool the bundle's server serves.
type Tool struct {
	Name, Description string
	// Gated tools need a person's approval for every call.
	Gated bool
}

// Tools lists the tools of set a client can see, in the set's order.
func Tools(set *exposure.ToolSet) []Tool {
	var out []Tool
	for _, t := range set.Tools() {
		if !t.MCPExposable() {
			continue
		}
		c, ok := t.(exposure.Confirmable)
		out = append(out, Tool{Name: t.Name(), Description: t.Description(), Gated: ok && c.NeedsConfirm()})
	}
	return out
}

// Validate reports what makes s unusable, every problem at once.
func (s Spec) Validate() error {
	var errs []error
	if s.Name == "" {
		errs = append(errs, errors.New("the bundle has no name; pass --name"))
	}
	if !semver.MatchString(s.Version) {
		errs = append(errs, fmt.Errorf("bundle version %q is not a semantic version; pass one such as 1.2.3", s.Version))
	}
	if s.Server == "" {
		errs = append(errs, errors.New("no fisk-mcp executable to pack"))
	}
	if len(s.Apps) == 0 {
		errs = append(errs, errors.New("no apps to bundle; pass at least one fisk binary"))
	}
	for _, a := range s.Apps {
		if !filepath.IsAbs(a.Path) {
			errs = append(errs, fmt.Errorf("app %q: the path must be absolute", a.Path))
		}
	}
	if err := s.Platform.check(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(append(errs, s.substituted()...)...)
}

// ErrSubstituted is wrapped by the errors that refuse a value of the
// manifest's command line or environment holding "${".
var ErrSubstituted = errors.New(`it holds "${", which Claude Desktop substitutes in a bundle's arguments and environment (a path, or the value of a setting, a secret among them), and the format has no escape`)

// substituted refuses what would be substituted in the manifest's
// arguments and environment besides the ${__dirname} and
// ${user_config.KEY} the manifest writes itself: a flag's value such as
// --name a${user_config.PASSWORD} would put the person's secret in the
// server's arguments, which every process of the machine can read.
func (s Spec) substituted() []error {
	var errs []error
	for _, a := range s.ServeArgs {
		if strings.Contains(a, "${") {
			errs = append(errs, fmt.Errorf("serve argument %q: %w; take \"${\" out of the flag's value", a, ErrSubstituted))
		}
	}
	entries := s.entries()
	for i, a := range s.Apps {
		// A copied app is named by its file name, an installed one by its path.
		if strings.Contains(a.Prefix, "${") || strings.Contains(cmp.Or(entries[i], a.Path), "${") {
			errs = append(errs, fmt.Errorf("app %q (prefix %q): %w; rename or move the app so that its path holds no \"${\"", a.Path, a.Prefix, ErrSubstituted))
		}
	}
	for _, v := range s.Env {
		if strings.Contains(v.Name, "${") {
			errs = append(errs, fmt.Errorf("environment variable %q of %s --%s: %w; rename the variable in the app", v.Name, v.App, v.Flag, ErrSubstituted))
		}
	}
	return errs
}

// entries names where each app lives in the bundle, by index of s.Apps;
// "" for an installed app. An app keeps its file name, so that it runs
// under the name it was built with; a second app of the same name goes in
// a directory of its own.
func (s Spec) entries() []string {
	out := make([]string, len(s.Apps))
	seen := map[string]int{}
	for i, a := range s.Apps {
		if a.Installed {
			continue
		}
		base := filepath.Base(a.Path)
		seen[base]++
		if n := seen[base]; n > 1 {
			out[i] = path.Join(appsDir, fmt.Sprint(n), base)
		} else {
			out[i] = path.Join(appsDir, base)
		}
	}
	return out
}

// appArgs renders the APP arguments of fisk-mcp serve: a copied app by its
// place in the bundle, an installed one by its path.
func (s Spec) appArgs() []string {
	entries := s.entries()
	out := make([]string, len(s.Apps))
	for i, a := range s.Apps {
		p := a.Path
		if entries[i] != "" {
			p = Dirname + "/" + entries[i]
		}
		if a.Prefix != "" {
			p = a.Prefix + "=" + p
		}
		out[i] = p
	}
	return out
}

// displayName is DisplayName, else Name.
func (s Spec) displayName() string {
	if strings.TrimSpace(s.DisplayName) != "" {
		return s.DisplayName
	}
	return s.Name
}
