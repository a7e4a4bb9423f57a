package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// toolListing is one tool as `fisk-mcp tools --json` prints it.
type toolListing struct {
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

func (c *cli) runTools(*fisk.ParseContext) error {
	p := c.tools
	if err := p.load(); err != nil {
		return err
	}
	c.planned = p
	if c.dryRun {
		return nil
	}
	l := newLoader(p)
	set, err := l.load(c.ctx)
	if err != nil {
		return err
	}
	for _, w := range set.Warnings() {
		fmt.Fprintf(c.stderr, "warning: %s\n", w)
	}
	listings := listTools(set, l.apps)
	if c.toolsJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"tools": listings})
	}
	return printToolTable(c.stdout, listings)
}

func listTools(set *exposure.ToolSet, apps []exposure.App) []toolListing {
	out := []toolListing{}
	for _, t := range set.Tools() {
		if !t.MCPExposable() {
			continue
		}
		l := toolListing{
			Name:        t.Name(),
			App:         appLabel(t, apps),
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
		l.Gate, l.Gated = gateOf(t)
		out = append(out, l)
	}
	return out
}

// printToolTable prints one line per tool, columns aligned.
func printToolTable(w io.Writer, tools []toolListing) error {
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.App, behaviourWords(t.Behavior), gate, tags, oneLine(t.Description, 72))
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
