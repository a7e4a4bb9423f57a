package bundle

import (
	"fmt"
	"regexp"
	"strings"
)

// Manifest is manifest.json, its fields in the order of the format's
// documentation. Maps are written with their keys sorted, so the document
// depends on nothing but its values.
type Manifest struct {
	ManifestVersion string                `json:"manifest_version"`
	Name            string                `json:"name"`
	DisplayName     string                `json:"display_name,omitempty"`
	Version         string                `json:"version"`
	Description     string                `json:"description"`
	LongDescription string                `json:"long_description,omitempty"`
	Author          Author                `json:"author"`
	Server          Server                `json:"server"`
	Tools           []ManifestTool        `json:"tools,omitempty"`
	Compatibility   Compatibility         `json:"compatibility"`
	UserConfig      map[string]UserConfig `json:"user_config,omitempty"`
	Meta            map[string]any        `json:"_meta,omitempty"`
}

// Author is who made the bundle.
type Author struct {
	Name string `json:"name"`
}

// Server says how Claude Desktop starts the server.
type Server struct {
	Type       string    `json:"type"` // always "binary"
	EntryPoint string    `json:"entry_point"`
	MCPConfig  MCPConfig `json:"mcp_config"`
}

// MCPConfig is the command line and environment, in which Claude Desktop
// substitutes ${__dirname} and ${user_config.KEY}.
type MCPConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// ManifestTool is one tool as the manifest lists it.
type ManifestTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Compatibility names the platforms the bundle runs on, as Node.js names
// them (darwin, linux).
type Compatibility struct {
	Platforms []string `json:"platforms"`
}

// UserConfig is one setting Claude Desktop asks the person for.
type UserConfig struct {
	Type        string `json:"type"` // string, boolean, file or directory
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Sensitive   bool   `json:"sensitive,omitempty"`
	Default     any    `json:"default,omitempty"`
}

// MetaKey is the manifest's _meta namespace of fisk-mcp: the Go platform
// the bundle was built for (which compatibility cannot say: it has no
// architecture) and the version of the fisk-mcp it packs.
const MetaKey = "com.github.fisk-mcp"

var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// SemVer returns v as a semantic version, without a leading "v", and
// whether it is one.
func SemVer(v string) (string, bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	return v, semver.MatchString(v)
}

// Manifest builds s's manifest. It does not validate s (see Validate).
func (s Spec) Manifest() Manifest {
	m := Manifest{
		ManifestVersion: ManifestVersion,
		Name:            s.Name,
		DisplayName:     s.displayName(),
		Version:         s.Version,
		Description:     s.Description,
		LongDescription: s.longDescription(),
		Author:          Author{Name: s.Author},
		Server: Server{
			Type:       "binary",
			EntryPoint: ServerPath,
			MCPConfig: MCPConfig{
				Command: Dirname + "/" + ServerPath,
				Args:    append(append([]string{"serve"}, s.ServeArgs...), s.appArgs()...),
				Env:     envOf(s.Env),
			},
		},
		Compatibility: Compatibility{Platforms: []string{s.Platform.node()}},
		UserConfig:    userConfigOf(s.Env),
		Meta: map[string]any{MetaKey: map[string]string{
			"os": s.Platform.OS, "arch": s.Platform.Arch, "fisk_mcp_version": s.ServerVersion,
		}},
	}
	if m.Author.Name == "" {
		m.Author.Name = m.DisplayName
	}
	for _, t := range s.Tools {
		m.Tools = append(m.Tools, ManifestTool{Name: t.Name, Description: t.Description})
	}
	return m
}

// longDescription says what the bundle serves, and how its gated tools
// are approved: Claude Desktop cannot ask a person itself.
func (s Spec) longDescription() string {
	gated := s.Gated()
	text := fmt.Sprintf("Serves %d commands of fisk command-line applications as MCP tools through fisk-mcp %s, run as an argument vector, never through a shell.", len(s.Tools), s.ServerVersion)
	if gated > 0 {
		text += fmt.Sprintf("\n\n%d of them need a person's approval for every call, which Claude Desktop cannot ask for itself (it has no MCP elicitation).", gated)
		if s.asksInTheBrowser() {
			text += " fisk-mcp asks in your browser instead: a page on this computer shows the exact command, and only a click on Approve runs it."
		} else {
			text += " Their calls are refused."
		}
	}
	return text
}

// asksInTheBrowser reports whether the server's flags have it ask for
// approval in the browser.
func (s Spec) asksInTheBrowser() bool {
	for i, a := range s.ServeArgs {
		switch {
		case a == "--approval=browser" || a == "--approval=elicit-or-browser":
			return true
		case a == "--approval" && i+1 < len(s.ServeArgs):
			return s.ServeArgs[i+1] == "browser" || s.ServeArgs[i+1] == "elicit-or-browser"
		}
	}
	return false
}

// Gated counts the gated tools of s.
func (s Spec) Gated() int {
	n := 0
	for _, t := range s.Tools {
		if t.Gated {
			n++
		}
	}
	return n
}
