// Package listing describes a tool set for people and for scripts: one
// entry per tool a client can see (name, app, behaviour, gate, tags,
// description and input schema), as JSON or as an aligned table, and what
// its tools/list weighs in each deferral mode (Weigh, which asks package
// server rather than building descriptors of its own); what the
// environment rule does to the commands' environment (Environment); and the
// per-app startup lines serve logs (LogApps); which served tools run
// without a person's approval and the tag mappings the apps' own tags
// suggest (Assess), and the commented configuration fisk-mcp init drafts
// from them (WriteDraft). It reads the set; it decides nothing about what
// is exposed, gated or deferred.
package listing

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// Tool is one tool as `fisk-mcp tools --json` prints it.
type Tool struct {
	Name        string            `json:"name"`
	Title       string            `json:"title,omitempty"`
	App         string            `json:"app"`
	Source      string            `json:"source"`
	Kind        string            `json:"kind"`
	Behavior    exposure.Behavior `json:"-"`
	BehaviorOut behaviorListing   `json:"behavior"`
	Gated       bool              `json:"gated"`
	Gate        string            `json:"gate,omitempty"`
	Tags        []string          `json:"tags"`
	Description string            `json:"description"`
	InputSchema map[string]any    `json:"input_schema"`
}

type behaviorListing struct {
	ReadOnly    bool `json:"read_only"`
	Destructive bool `json:"destructive"`
	Idempotent  bool `json:"idempotent"`
	OpenWorld   bool `json:"open_world"`
}

// Tools lists the tools of set a client can see; apps are the configured
// apps, which name the app of each tool.
func Tools(set *exposure.ToolSet, apps []exposure.App) []Tool {
	out := []Tool{}
	for _, t := range set.Tools() {
		if !t.MCPExposable() {
			continue
		}
		l := Tool{
			Name:        t.Name(),
			App:         AppLabel(t, apps),
			Kind:        string(exposure.KindOf(t)),
			Behavior:    exposure.BehaviorOf(t),
			Tags:        []string{},
			Description: t.Description(),
			InputSchema: t.InputSchema(),
		}
		b := l.Behavior
		l.BehaviorOut = behaviorListing{ReadOnly: b.ReadOnly, Destructive: b.Destructive, Idempotent: b.Idempotent, OpenWorld: b.OpenWorld}
		if src, ok := t.(exposure.Sourced); ok {
			l.Source, l.Title = src.Source(), src.Title()
			if tags := src.Tags(); tags != nil {
				l.Tags = tags
			}
		}
		l.Gate, l.Gated = Gate(t)
		out = append(out, l)
	}
	return out
}

// WriteTable prints one line per tool, columns aligned, and the count.
func WriteTable(w io.Writer, tools []Tool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tAPP\tBEHAVIOUR\tGATE\tTAGS\tDESCRIPTION")
	for _, t := range tools {
		gate := "-"
		if t.Gated {
			gate = t.Gate
		}
		tags := "-"
		if len(t.Tags) > 0 {
			tags = strings.Join(t.Tags, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.App, Behaviour(t.Behavior), gate, tags, oneLine(t.Description, 72))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d tools\n", len(tools))
	return err
}

// oneLine keeps the first line of s, cut to at most n characters.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// AppTools returns the tools of set that came from app, one of all.
func AppTools(set *exposure.ToolSet, app exposure.App, all []exposure.App) []exposure.Tool {
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

// AppLabel names a tool's app in listings: its prefix, else its binary's name.
func AppLabel(t exposure.Tool, apps []exposure.App) string {
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

// Gate reports whether t is gated and the tag that gates it.
func Gate(t exposure.Tool) (trigger string, gated bool) {
	c, ok := t.(exposure.Confirmable)
	if !ok {
		// The server refuses such a tool; show it as gated by nothing known.
		return "(unknown: refused)", true
	}
	return c.ConfirmTrigger(), c.NeedsConfirm()
}

// Behaviour describes a tool's behaviour for people: read-only,
// additive or destructive, then idempotent and closed-world when they hold.
func Behaviour(b exposure.Behavior) string {
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
